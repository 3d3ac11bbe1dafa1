package lint_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
)

// TestECNBeforePFCSeverity: an ECN min at or above the congested XOFF
// point is an error (nothing is ever marked), an ECN max there a warning
// that states the marking probability; the stated N of the intent reaches
// the buffer plan.
func TestECNBeforePFCSeverity(t *testing.T) {
	dir := filepath.Join(linttest.TestData(), lint.ECNBeforePFC.Name)
	want := map[string]diag.Severity{"min-above-xoff": diag.Error, "small-reserve": diag.Error, "max-above-xoff": diag.Warning, "cells": diag.Warning,
		"max-marks-too-little": diag.Error}
	seen := 0
	for _, r := range linttest.Run(t, dir, lint.ECNBeforePFC) {
		if _, ok := want[r.Case]; ok || r.Case == "stated-queues" {
			seen++
		}
		if r.Case == "stated-queues" {
			for _, d := range r.Fabric.Switches() {
				if b := d.Switch.Buffers; b.CongestedQueues != 4 || b.XoffPoint != 9_600_000 {
					t.Errorf("%s: N = %d, XOFF point %d B, want 4 and 9.6 MB", d.Name, b.CongestedQueues, b.XoffPoint)
				}
			}
		}
		sev, ok := want[r.Case]
		if !ok {
			continue
		}
		if len(r.Diagnostics) == 0 {
			t.Errorf("%s: no finding", r.Case)
		}
		for _, d := range r.Diagnostics {
			if d.Severity != sev || d.Rule != "RF102" {
				t.Errorf("%s: %s %s, want %s RF102", r.Case, d.Severity, d.Rule, sev)
			}
			if sev == diag.Warning && !strings.Contains(d.Message, "marks at most") {
				t.Errorf("%s: warning without the marking probability: %s", r.Case, d.Message)
			}
		}
		if r.Case == "max-above-xoff" {
			for _, d := range r.Fabric.Switches() {
				b := d.Switch.Buffers
				if b.CongestedQueues != len(d.Switch.Ports) || b.XoffPoint != 48_000_000/int64(1+len(d.Switch.Ports)) {
					t.Errorf("%s: N = %d, XOFF point %d B with %d ports, want N = ports and 48 MB/(1+N)", d.Name, b.CongestedQueues, b.XoffPoint, len(d.Switch.Ports))
				}
				if !hasDerivation(b.Derived, "xoff-point", "N") || !hasDerivation(b.Derived, "congested-queues", "lossless_ports") {
					t.Errorf("%s: explain would not show N and the formula: %+v", d.Name, b.Derived)
				}
			}
		}
	}
	if seen != len(want)+1 {
		t.Errorf("ran %d of the %d cases this test checks", seen, len(want)+1)
	}
}

func hasDerivation(ds []ir.Derivation, field, input string) bool {
	for _, d := range ds {
		if d.Field != field || d.Formula == "" {
			continue
		}
		for _, in := range d.Inputs {
			if in.Name == input {
				return true
			}
		}
	}
	return false
}

// TestECNBeforePFCSharedPool: on EOS, which holds no share of the buffer
// for one class, the buffer plan, its XOFF point and so RF102 follow the
// shared pool the switch runs on, and the intent's reserve is kept as
// unheld rather than counted.
func TestECNBeforePFCSharedPool(t *testing.T) {
	dir := filepath.Join(linttest.TestData(), lint.ECNBeforePFC.Name)
	seen := false
	for _, r := range linttest.Run(t, dir, lint.ECNBeforePFC) {
		if r.Case != "eos-shared-pool" {
			continue
		}
		seen = true
		if len(r.Diagnostics) != 0 {
			t.Errorf("RF102 on the shared pool: %v", r.Diagnostics)
		}
		for _, d := range r.Fabric.Switches() {
			b := d.Switch.Buffers
			if !b.Shared || b.LosslessBytes != 0 || b.ReservePercent != 0 || len(b.Reserves) != 0 {
				t.Errorf("%s: plan holds a reserve on EOS: shared %v, %d B, %d %%", d.Name, b.Shared, b.LosslessBytes, b.ReservePercent)
			}
			if b.UnheldPercent != 30 || b.UnheldName != "roce" || b.UnheldBytes != b.TotalBytes*30/100 {
				t.Errorf("%s: unheld reserve %d %% for %q (%d B), want the default 30 %% for roce", d.Name, b.UnheldPercent, b.UnheldName, b.UnheldBytes)
			}
			if b.PoolBytes != b.TotalBytes-b.HeadroomBytes || b.LossyBytes != b.PoolBytes {
				t.Errorf("%s: pool %d B, lossy %d B, want buffer %d B less headroom %d B", d.Name, b.PoolBytes, b.LossyBytes, b.TotalBytes, b.HeadroomBytes)
			}
			if want := b.PoolBytes / int64(1+b.CongestedQueues); b.XoffPoint != want || b.CongestedQueues != len(d.Switch.Ports) {
				t.Errorf("%s: XOFF point %d B with N = %d, want pool/(1+N) = %d B with N = %d", d.Name, b.XoffPoint, b.CongestedQueues, want, len(d.Switch.Ports))
			}
			if !hasDerivation(b.Derived, "shared-pool", "headroom_pool") || hasDerivation(b.Derived, "reserved-pool", "percent") {
				t.Errorf("%s: explain would not show the shared pool: %+v", d.Name, b.Derived)
			}
			for _, dv := range b.Derived {
				if dv.Field == "buffer-demand" {
					for _, in := range dv.Inputs {
						if in.Name == "reserve[roce]" {
							t.Errorf("%s: the budget charges a reserve EOS does not hold: %+v", d.Name, dv)
						}
					}
				}
			}
		}
	}
	if !seen {
		t.Fatal("case eos-shared-pool did not run")
	}
}
