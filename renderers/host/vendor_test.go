package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// vendorDevice is the dcb server of the script tests with the NICs of
// another vendor: RDMA devices named as its driver names them, no cable
// length, and the driver's congestion-control knobs instead of mlx5's.
// It keeps two of the server's NICs: the runtime sets each HCA's knobs in
// one loop, and two show that a knob changed on one HCA is repaired there
// alone; each further NIC would add a tenth of a second of forks to every
// run and prove nothing more.
func vendorDevice(t *testing.T, hca string, knobs []ir.CCKnob) *ir.Device {
	d := cloneHost(dcbDevice(t))
	d.Host.NICs = d.Host.NICs[:2]
	p := d.Host.Profile
	p.CableM, p.DCQCN.Params, p.CCKnobs = 0, nil, knobs
	for i := range d.Host.NICs {
		d.Host.NICs[i].HCA = hca + itoa(i)
	}
	return d
}

// TestVendorCongestionControl runs the runtime against a stand-in of each
// driver's configfs group: plain files that read back what was written,
// as the drivers' show functions do for the values they hold (bnxt_re
// configfs.c prints "%#x", so 0 reads "0"). bnxt_re's values take effect
// only with a write to apply, which the stand-in records.
func TestVendorCongestionControl(t *testing.T) {
	t.Parallel()
	for _, tc := range irtest.VendorCCs() {
		t.Run(tc.Driver, func(t *testing.T) {
			t.Parallel()
			d := vendorDevice(t, tc.HCA, tc.Knobs)
			conf := render(t, d)
			if !strings.Contains(conf, "readonly -a NIC_CC=(") || !strings.Contains(conf, "'"+tc.Driver+" "+tc.Knobs[0].Name+" "+tc.Knobs[0].Value+"'") {
				t.Fatalf("host.conf has no NIC_CC for %s:\n%s", tc.Driver, conf)
			}
			w := newWorld(t, d, desiredNIC(d.Host.Profile), tcDesired(d, 100000), false, true, "dcb", "tc", "ip")
			knob := func(hca, name string) string {
				return filepath.Join("sys/kernel/config", tc.Driver, hca, tc.Sub, name)
			}
			for _, n := range d.Host.NICs {
				for _, k := range tc.Knobs {
					w.write(knob(n.HCA, k.Name), "0\n")
				}
				if tc.Driver == "bnxt_re" {
					w.write(knob(n.HCA, "apply"), "")
				}
			}
			hca := d.Host.NICs[0].HCA

			// Drift: --check reports every knob and writes nothing.
			before := w.snapshot()
			out, stderr, code := w.run("--check")
			if code != 1 || !strings.Contains(out, "DRIFT "+hca+" "+tc.Driver+" "+tc.Knobs[0].Name+": have 0, want "+tc.Knobs[0].Value) {
				t.Fatalf("--check exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			if !mapsEqual(before, w.snapshot()) {
				t.Error("--check changed the configfs stand-in")
			}
			// --check --json reports each knob as Desired has it.
			js, stderr, _ := w.run("--check", "--json")
			var doc stateDoc
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatalf("--check --json: %v\n%s\n%s", err, js, stderr)
			}
			want := map[string]string{}
			for _, e := range desiredElements(settingsOf(d)) {
				if strings.Contains(e.Path, "/cc/") {
					want[e.Path] = e.Value
				}
			}
			got := map[string]string{}
			for _, s := range doc.Settings {
				if strings.Contains(s.Path, "/cc/") && s.Have != nil && s.Want != nil {
					got[s.Path] = *s.Want
					if *s.Have != "0" {
						t.Errorf("%s: have %q, want the stand-in's 0", s.Path, *s.Have)
					}
				}
			}
			if len(want) != len(d.Host.NICs)*len(tc.Knobs) || !mapsEqual(want, got) {
				t.Errorf("--check --json knobs %v, Desired %v", got, want)
			}
			if strings.Contains(js, "/ecn/") || strings.Contains(js, "/dcqcn/") {
				t.Errorf("--check --json reports mlx5 ECN knobs for %s:\n%s", tc.Driver, js)
			}

			// Apply sets every knob (bnxt_re: then applies them) and a
			// second check is in sync.
			out, stderr, code = w.run()
			if code != 0 {
				t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			for _, n := range d.Host.NICs {
				for _, k := range tc.Knobs {
					if v := w.get(knob(n.HCA, k.Name)); v != k.Value {
						t.Errorf("%s %s = %q after apply, want %q", n.HCA, k.Name, v, k.Value)
					}
				}
				if tc.Driver == "bnxt_re" && w.get(knob(n.HCA, "apply")) != "0x1" {
					t.Errorf("%s: the staged values were not applied", n.HCA)
				}
			}
			if out, stderr, code = w.run("--check"); code != 0 || strings.Contains(out, "DRIFT") {
				t.Fatalf("--check after apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}

			// A knob changed by hand is drift, and a run repairs only it.
			last := tc.Knobs[len(tc.Knobs)-1]
			w.write(knob(hca, last.Name), "0\n")
			if tc.Driver == "bnxt_re" {
				w.write(knob(hca, "apply"), "")
			}
			out, _, code = w.run("--check")
			if code != 1 || strings.Count(out, "DRIFT") != 1 || !strings.Contains(out, "DRIFT "+hca+" "+tc.Driver+" "+last.Name) {
				t.Fatalf("--check after a hand change: exit %d\n%s", code, out)
			}
			out, stderr, code = w.run()
			if code != 0 || w.get(knob(hca, last.Name)) != last.Value {
				t.Fatalf("repair: exit %d, %s = %q\nstdout:\n%s\nstderr:\n%s", code, last.Name, w.get(knob(hca, last.Name)), out, stderr)
			}
			if tc.Driver == "bnxt_re" && w.get(knob(hca, "apply")) != "0x1" {
				t.Error("the repair was not applied")
			}

			// A write the driver refuses stops the run with status 2 and
			// says which (the target then rolls the server back).
			w.write(knob(hca, last.Name), "0\n")
			bad := knob(hca, last.Name)
			if tc.Driver == "bnxt_re" {
				bad = knob(hca, "apply")
			}
			if err := os.Remove(filepath.Join(w.dir, bad)); err != nil {
				t.Fatal(err)
			}
			w.mkdir(bad)
			if tc.Driver == "irdma" {
				// A knob that cannot be read is an error, never written blind.
				out, stderr, code = w.run()
				if code != 2 || !strings.Contains(out+stderr, "cannot read") {
					t.Errorf("unreadable knob: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
				}
				return
			}
			out, stderr, code = w.run()
			if code != 2 || !strings.Contains(stderr, "failed: cannot write 0x1 to") {
				t.Errorf("refused apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
		})
	}
}
