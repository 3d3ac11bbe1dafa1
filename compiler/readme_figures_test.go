package compiler_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
)

// The README quotes the Tomahawk 5 xoff at 400G/40m; it must be what the
// compiler derives for a 7060X6-64PE port of that class.
func TestREADMETomahawkXoff(t *testing.T) {
	f := compile(t, `name: "x"
topology: {servers: 16, rails: 1, nic: {speed: "400G", cable: "40m"},
	leaf: {platform: "sonic", model: "7060X6-64PE", downlinks: 16, uplinks: 16, speed: "400G"},
	spine: {platform: "sonic", model: "7060X6-64PE", speed: "400G", cable: "40m"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]`)
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
