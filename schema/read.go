package schema

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
)

// source is one file of an intent, read once: the limits, cue/load and the
// positions of findings all see the same bytes.
type source struct {
	name string // as the user gave it, joined to its directory
	data []byte
}

// readRegular reads a regular file of at most limit bytes. Anything else is
// an error that keeps its cause (permission denied, not a regular file,
// too large), because the CLI answers it with "could not run": a named
// pipe or a device given as an intent would otherwise block or never end.
func readRegular(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s)", kind(st.Mode()))}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been replaced between Stat and Open: check what
	// was opened.
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s)", kind(st.Mode()))}
	}
	if st.Size() > limit {
		return nil, &tooLargeError{path: path, size: st.Size(), limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &tooLargeError{path: path, size: int64(len(b)), limit: limit}
	}
	return b, nil
}

// tooLargeError is a file above a size limit: a finding for an intent,
// which should hold parameters, and the reason a device list is refused.
type tooLargeError struct {
	path        string
	size, limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s: %s, more than the %s rocefab reads", e.path, sizeStr(e.size), sizeStr(e.limit))
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

func sizeStr(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// readSources reads the files of an intent: path itself, or every .cue
// file of the directory path, sorted. Errors say what could not be read
// and why, in the words of the operating system; intent files above
// MaxIntentBytes in all are a finding at the first file that passes it.
func readSources(path string, dir bool) ([]source, diag.List, error) {
	var names []string
	if dir {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read intent: %w", err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".cue") {
				names = append(names, filepath.Join(path, e.Name()))
			}
		}
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("no CUE files in %s: an intent is a .cue file, a .json file or a directory of .cue files", path)
		}
		slices.Sort(names)
	} else {
		names = []string{path}
	}
	out := make([]source, 0, len(names))
	var total int64
	for _, n := range names {
		b, err := readRegular(n, MaxIntentBytes-total)
		var big *tooLargeError
		if errors.As(err, &big) {
			return nil, diag.List{schemaDiag(diag.Pos{File: n, Line: 1, Column: 1},
				"the intent is larger than %s: an intent holds parameters, not lists of devices; give a large fabric as a JSON device list (topology.style \"explicit\")",
				sizeStr(MaxIntentBytes))}, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read intent: %w", err)
		}
		total += int64(len(b))
		out = append(out, source{name: n, data: b})
	}
	return out, nil, nil
}
