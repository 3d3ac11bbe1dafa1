package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets"
)

// Reach is what sampling needs of the fabric's transports: routing's
// Counters gives it, reading each device through the transport the
// inventory names (the same gNMI, SSH and host targets plan and apply
// use), asked only to read.
type Reach interface {
	// Via says how d is reached: "gnmi" (GetState), "cli" (a switch
	// over SSH) or "shell" (a server, Run), or why it cannot be.
	Via(d *ir.Device) (string, error)
	// GetState is a gNMI Get of the operational state at paths.
	GetState(ctx context.Context, d *ir.Device, paths []string) ([]*gpb.Notification, error)
	// Run runs a command that only reads on a server.
	Run(ctx context.Context, d *ir.Device, argv []string) ([]byte, error)
	// Show runs commands that only read on a switch over SSH and
	// returns what each printed.
	Show(ctx context.Context, d *ir.Device, cmds []string) ([]string, error)
}

// How Reach.Via names the ways to a device (routing's ViaGNMI, ViaCLI,
// ViaShell).
const (
	viaGNMI  = "gnmi"
	viaCLI   = "cli"
	viaShell = "shell"
)

// Progress is told how far sampling is: each step (a round of reads,
// counting total devices, or the wait between them, total 0) and each
// device read.
type Progress interface {
	Step(what string, total int)
	Add()
}

// SampleOptions say what to sample and how.
type SampleOptions struct {
	Devices []*ir.Device
	Reach   Reach
	// Wait is the time between a device's two samples (at least).
	Wait time.Duration
	// Parallelism bounds the devices read at once
	// (targets.DefaultParallelism when 0, as plan).
	Parallelism int
	// Progress, when set, is told how far sampling is.
	Progress Progress
	// Record, when set, receives each round's samples as they are filed
	// (Record[0] the first round's, Record[1] the second's), exposition
	// lines that read back as the same two scrapes: the evidence of a
	// quarantine plan, which apply diagnoses again.
	Record [2]io.Writer
}

// Unsampled is a device whose counters could not be read, and why.
type Unsampled struct {
	Device string `json:"device"`
	Error  string `json:"error"`
}

// Sample reads the counters of every device twice through its transport,
// opt.Wait apart, and files both samples into w as two scrapes, each
// sample stamped with the time its device was read: the series are named
// and labelled as docs/doctor.md lists them (gnmic's names for switches,
// node_exporter's for servers), so the diagnosis reads them as it reads
// a collector's. A device that cannot be read in the first round is not
// asked again; every device that could not be read is returned, sorted
// by name, and the rest are sampled. The error is the window refusing
// what was read, or ctx ending.
func Sample(ctx context.Context, w *Window, opt SampleOptions) ([]Unsampled, error) {
	n := len(opt.Devices)
	errs := make([]error, n)
	devs := slices.Clone(opt.Devices)
	for round := 1; round <= 2; round++ {
		if round == 2 {
			if opt.Progress != nil {
				opt.Progress.Step(fmt.Sprintf("waiting %s between the samples", opt.Wait), 0)
			}
			select {
			case <-time.After(opt.Wait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		var ask []int
		for i := range devs {
			if errs[i] == nil {
				ask = append(ask, i)
			}
		}
		if opt.Progress != nil {
			opt.Progress.Step(fmt.Sprintf("sampling the counters (%d of 2)", round), len(ask))
		}
		if err := sampleRound(ctx, w, fmt.Sprintf("sample %d of 2", round), devs, ask, errs, opt, opt.Record[round-1]); err != nil {
			return nil, err
		}
	}
	var out []Unsampled
	for i, err := range errs {
		if err != nil {
			out = append(out, Unsampled{Device: devs[i].Name, Error: err.Error()})
		}
	}
	slices.SortFunc(out, func(a, b Unsampled) int { return strings.Compare(a.Device, b.Device) })
	return out, nil
}

// sampleRound reads the devices of ask (indexes in devs), setting errs
// of those it cannot read, and files the others' samples into w as one
// scrape named name. Each device's samples are filed as soon as every
// device before it in ask is done, so the round holds the answers of the
// devices read out of order only (about parallelism of them), not the
// whole fabric's, and the window is filled in the devices' order whatever
// order they answer in. record, when set, gets what is filed.
func sampleRound(ctx context.Context, w *Window, name string, devs []*ir.Device, ask []int, errs []error, opt SampleOptions, record io.Writer) error {
	pr, pw := io.Pipe()
	filed := make(chan error, 1)
	go func() {
		var r io.Reader = pr
		if record != nil {
			r = io.TeeReader(pr, record)
		}
		err := w.Read(r, name, 0)
		pr.CloseWithError(err)
		filed <- err
	}()
	var mu sync.Mutex
	outs := make([][]byte, len(ask))
	done := make([]bool, len(ask))
	next := 0
	readAll(ctx, len(ask), opt.Parallelism, func(k int) {
		i := ask[k]
		out, err := sampleDevice(ctx, opt.Reach, devs[i])
		if opt.Progress != nil {
			opt.Progress.Add()
		}
		mu.Lock()
		defer mu.Unlock()
		outs[k], errs[i], done[k] = out, err, true
		for ; next < len(ask) && done[next]; next++ {
			if errs[ask[next]] == nil {
				// An error here is the window's, which filed says.
				_, _ = pw.Write(outs[next])
			}
			outs[next] = nil
		}
	})
	pw.CloseWithError(ctx.Err())
	if err := <-filed; err != nil {
		return err
	}
	return ctx.Err()
}

// readAll calls read for 0..n-1 on up to parallelism goroutines,
// starting none once ctx is done.
func readAll(ctx context.Context, n, parallelism int, read func(k int)) {
	if parallelism <= 0 {
		parallelism = targets.DefaultParallelism
	}
	slots := make(chan struct{}, parallelism)
	var wg sync.WaitGroup
	for k := range n {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		wg.Go(func() {
			defer func() { <-slots }()
			read(k)
		})
	}
	wg.Wait()
}

// sampleDevice reads d's counters once and returns them as exposition
// lines, each stamped with the time of the read.
func sampleDevice(ctx context.Context, reach Reach, d *ir.Device) ([]byte, error) {
	via, err := reach.Via(d)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	switch {
	case d.Switch == nil && via == viaShell:
		err = sampleServer(ctx, reach, d, bw)
	case d.Switch != nil && via == viaGNMI:
		err = sampleGNMI(ctx, reach, d, bw)
	case d.Switch != nil && via == viaCLI:
		err = sampleCLI(ctx, reach, d, bw)
	default:
		err = fmt.Errorf("%s: the inventory reaches this %s over %s, which holds no counters rocefab reads", d.Name, d.Role, via)
	}
	if err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// midpoint is the time between start and now, in milliseconds since the
// epoch: the best guess of when a command that ran meanwhile read the
// counters.
func midpoint(start time.Time) int64 {
	return start.Add(time.Since(start) / 2).UnixMilli()
}

// errNoCounters is a device that answered without any counter doctor
// reads.
var errNoCounters = errors.New("it answered with no counter doctor reads")
