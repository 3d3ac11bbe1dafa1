package cli

import (
	"io"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows how far a long command is: which step runs and for how
// long, and for the step that renders devices, how many are done. Only a
// terminal gets it (and not with -q): logs and pipes get the one-line
// summary alone.
type progress interface {
	// step ends the step before and starts one named what; total > 0
	// makes it count to total with add.
	step(what string, total int)
	add()
	// done ends the last step; calling it again does nothing.
	done()
}

type noProgress struct{}

func (noProgress) step(string, int) {}
func (noProgress) add()             {}
func (noProgress) done()            {}

// steps draws each step as a line of its own on w, which stays when the
// step ends with the time it took: a build of 100,000 GPUs shows where
// its time went (loading, compiling, reading the earlier build,
// rendering, putting the new one in place).
type steps struct {
	w       io.Writer
	p       *mpb.Progress
	b       *mpb.Bar
	counted bool
	cur     atomic.Pointer[mpb.Bar]
}

func newSteps(w io.Writer) *steps { return &steps{w: w} }

func (s *steps) step(what string, total int) {
	s.done()
	s.p = mpb.New(mpb.WithOutput(s.w), mpb.WithWidth(40))
	s.counted = total > 0
	start := time.Now()
	elapsed := decor.Any(func(decor.Statistics) string { return time.Since(start).Round(100 * time.Millisecond).String() })
	if total > 0 {
		s.b = s.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(what+" "), decor.CountersNoUnit("%d/%d devices")),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 5}), decor.Name(" "), elapsed),
		)
	} else {
		s.b = s.p.New(0, mpb.NopStyle(), mpb.PrependDecorators(decor.Name(what+" ... ")), mpb.AppendDecorators(elapsed))
	}
	s.cur.Store(s.b)
}

// add counts one device; renderers call it from many goroutines.
func (s *steps) add() {
	if b := s.cur.Load(); b != nil {
		b.Increment()
	}
}

func (s *steps) done() {
	if s.p == nil {
		return
	}
	s.cur.Store(nil)
	switch {
	case s.b.Completed():
	case s.counted:
		// Cut short (an error, an interrupt): the bar stays where it
		// stopped, and the command says why below it.
		s.b.Abort(false)
	default:
		s.b.SetTotal(-1, true)
	}
	s.p.Wait()
	s.p, s.b = nil, nil
}
