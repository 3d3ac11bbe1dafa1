package outdir

// Background is an inspection running while the caller does something
// else: a rebuild reads and digests every file of the earlier build, and a
// build overlaps that with compiling the intent (each takes a core, and
// neither needs the other).
type Background struct {
	done chan struct{}
	res  Inspected
}

// Inspected is what a background inspection found.
type Inspected struct {
	// Inspection is the directory inspected, nil on an error.
	Inspection *Inspection
	// Header is the manifest the build would write, as header made it.
	Header Manifest
	// UpToDate is set when the directory already holds that build.
	UpToDate bool
	Err      error
}

// InspectInBackground makes the build's header, then inspects dir (Inspect)
// and checks whether it is up to date with that header, reading only,
// while the caller goes on.
func InspectInBackground(dir string, opt Options, header func() (Manifest, error)) *Background {
	b := &Background{done: make(chan struct{})}
	go func() {
		defer close(b.done)
		r := &b.res
		r.Header, r.Err = header()
		if r.Err != nil {
			return
		}
		r.Inspection, r.Err = Inspect(dir, opt)
		if r.Err != nil {
			return
		}
		r.UpToDate = r.Inspection.UpToDate(r.Header)
	}()
	return b
}

// Wait waits for the inspection and returns what it found. A nil
// Background (no inspection was started) returns at once, with nothing.
func (b *Background) Wait() Inspected {
	if b == nil {
		return Inspected{}
	}
	<-b.done
	return b.res
}
