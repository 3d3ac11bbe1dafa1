package compiler_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// readmeXoffHeader opens the README's table of XOFF points at full port
// count.
const readmeXoffHeader = "| model | platform, pool | ports | XOFF point, N = ports |"

// TestREADMEXoffTable holds every entry of the README's XOFF-point table to
// the catalog and the compiler: each model runs each platform named, has
// that many ports at each speed named (so a port count the SKU cannot lay
// out is caught), and a leaf of that many ports (half down, half up, every
// cable 3 m, the default reserve) gets that XOFF point.
func TestREADMEXoffTable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, readmeXoffHeader)
	if i < 0 {
		t.Fatalf("README.md has no table %q", readmeXoffHeader)
	}
	lines := strings.Split(s[i:], "\n")[2:]
	entries := 0
	for _, line := range lines {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for len(cells) >= 4 {
			e := cells[:4]
			cells = cells[min(5, len(cells)):]
			if strings.TrimSpace(e[0]) == "" {
				continue
			}
			entries++
			checkXoffEntry(t, e)
		}
	}
	if entries == 0 {
		t.Fatal("README.md's XOFF-point table has no entries")
	}
}

// checkXoffEntry checks one README entry: models, "platforms, pool",
// "N×SPEED[/SPEED...]", "XOFF B".
func checkXoffEntry(t *testing.T, e []string) {
	t.Helper()
	for k := range e {
		e[k] = strings.TrimSpace(e[k])
	}
	plats := strings.Split(e[1], ", ")
	plats = plats[:len(plats)-1] // the pool kind
	n, speeds, ok := strings.Cut(e[2], "×")
	ports, err := strconv.Atoi(n)
	if !ok || err != nil {
		t.Errorf("README entry %v: ports %q is not N×SPEED", e, e[2])
		return
	}
	want, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSuffix(e[3], " B"), " ", ""), 10, 64)
	if err != nil {
		t.Errorf("README entry %v: XOFF point %q is not a byte count", e, e[3])
		return
	}
	for _, m := range strings.Split(e[0], ", ") {
		sw, ok := platforms.LookupSwitch(m)
		if !ok {
			t.Errorf("README entry %v: no catalog model %s", e, m)
			continue
		}
		for _, speed := range strings.Split(speeds, "/") {
			if got := sw.Ports[speed]; got != ports {
				t.Errorf("README says %s has %d×%s; the catalog gives %d", m, ports, speed, got)
				continue
			}
			for _, plat := range plats {
				if !sw.RunsPlatform(plat) {
					t.Errorf("README says %s runs %s; the catalog does not", m, plat)
					continue
				}
				f, _ := compileAllowingOverrun(t, fullPortIntent(plat, m, speed, ports, 1, "3m"))
				for _, d := range f.Devices {
					if d.Role != ir.RoleLeaf {
						continue
					}
					if got := d.Switch.Buffers.XoffPoint; got != want {
						t.Errorf("README says %s %s %d×%s has its XOFF point at %d B; the compiler gives %d B", m, plat, ports, speed, want, got)
					}
					break
				}
			}
		}
	}
}

// The README quotes the Tomahawk 5 xoff at 400G/40m; it must be what the
// compiler derives for a 7060X6-64PE port of that class.
func TestREADMETomahawkXoff(t *testing.T) {
	f := compile(t, th5Intent(16, "40m", `platform: "sonic"`, `platform: "sonic", model: "7060X6-64PE"`, "40m"))
	var xoff int64
	for _, d := range f.Devices {
		if d.Role != ir.RoleLeaf {
			continue
		}
		for _, h := range d.Switch.Headrooms {
			if h.SpeedGbps == 400 && h.CableM == 40 {
				xoff = h.Xoff
			}
		}
		break
	}
	if xoff == 0 {
		t.Fatal("no 400G-40m port class on the leaf")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := strconv.FormatInt(xoff, 10)
	want := n[:len(n)-3] + "," + n[len(n)-3:] + " B xoff at 400G/40m"
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
		t.Errorf("README.md does not say %q", want)
	}
}
