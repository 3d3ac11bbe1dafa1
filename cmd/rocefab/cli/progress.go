package cli

import (
	"io"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows how far a long command is. Only a terminal gets a bar:
// logs and pipes get the one-line summary alone.
type progress interface {
	add()
	done()
}

type noProgress struct{}

func (noProgress) add()  {}
func (noProgress) done() {}

type bar struct {
	p *mpb.Progress
	b *mpb.Bar
}

func newBar(w io.Writer, total int) progress {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40))
	b := p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name("rendering "), decor.CountersNoUnit("%d/%d devices")),
		mpb.AppendDecorators(decor.Percentage()),
	)
	return &bar{p: p, b: b}
}

func (b *bar) add() { b.b.Increment() }

func (b *bar) done() {
	if !b.b.Completed() {
		b.b.Abort(false)
	}
	b.p.Wait()
}
