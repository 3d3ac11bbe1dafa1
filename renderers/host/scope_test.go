package host

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
)

// TestCheckScope: every server's own remediation passes; one edited to
// reach outside what rocefab owns on the server is refused, a command in
// its host.conf even with the checksum recomputed.
func TestCheckScope(t *testing.T) {
	r := Renderer{}
	// fresh is the remediation of a server that runs nothing yet.
	fresh := func(d *ir.Device) renderers.Remediation {
		desired, err := r.Desired(d)
		if err != nil {
			t.Fatal(err)
		}
		_, rem, err := r.Diff(d, renderers.Elements(nil), desired)
		if err != nil {
			t.Fatal(err)
		}
		return rem
	}
	for _, d := range append(handled(irtest.Fabric()), ofedDevice(t)) {
		if err := r.CheckScope(d, fresh(d)); err != nil {
			t.Errorf("%s: its own remediation: %v", d.Name, err)
		}
	}
	d := ofedDevice(t)
	rem := fresh(d)
	var good remedy
	if err := json.Unmarshal(rem.Content, &good); err != nil {
		t.Fatal(err)
	}
	withConf := func(conf string) func(*remedy) {
		return func(x *remedy) { x.Install.Content, x.Install.SHA256 = conf, digest(conf) }
	}
	for _, tc := range []struct {
		name string
		edit func(*remedy)
		want string
	}{
		{"a command appended to host.conf", withConf(good.Install.Content + "touch /tmp/owned\n"), `host.conf line `},
		{"a substitution as a value", withConf(strings.Replace(good.Install.Content, "readonly MTU=", "readonly MTU=$(reboot)#", 1)), `not a setting (readonly NAME=VALUE) or a comment`},
		{"a command in an array", withConf(strings.Replace(good.Install.Content, "readonly -a PRIO_TC=(", "readonly -a PRIO_TC=($(id) ", 1)), `not a single-quoted constant or an integer`},
		{"a setting of another name", withConf(good.Install.Content + "readonly PATH='/tmp'\n"), `setting PATH is not one rocefab writes`},
		{"another path", func(x *remedy) { x.Install.Path = "/etc/profile.d/x.sh" }, `it installs "/etc/profile.d/x.sh"`},
		{"another command", func(x *remedy) { x.Run = []string{"/bin/sh", "-c", "id"} }, `it runs`},
		{"another server", func(x *remedy) { x.Device = "gpu-9999" }, `the remediation is for "gpu-9999"`},
		{"another section", func(x *remedy) { x.Sections = append(x.Sections, "reboot") }, `section "reboot"`},
		{"a foreign setting", func(x *remedy) { x.Writes = append(x.Writes, remedyKey{Path: "eth99/mtu", Value: new("1500")}) }, `setting "eth99/mtu"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := good
			x.Sections = append([]string(nil), good.Sections...)
			x.Writes = append([]remedyKey(nil), good.Writes...)
			tc.edit(&x)
			err := r.CheckScope(d, renderers.Remediation{Format: renderers.JSON, Content: x.encode()})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "outside the owned scope") {
				t.Errorf("CheckScope: %v, want %q", err, tc.want)
			}
		})
	}
}
