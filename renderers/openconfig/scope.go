package openconfig

import (
	"fmt"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// CheckScope refuses a SetRequest that reaches outside switch d's owned
// paths ([OwnedPaths]), reading the remediation alone
// (renderers.ScopeChecker): /qos may be replaced or deleted, each owned
// leaf of d's ports updated or deleted, and nothing else; a prefix or an
// origin other than OpenConfig's is refused, since it would move every
// path somewhere this check does not see.
func (Platform) CheckScope(d *ir.Device, rem renderers.Remediation) error {
	if ok, err := renderers.ScopeInput("openconfig", d, rem, renderers.Prototext, "a SetRequest"); !ok {
		return err
	}
	req, err := ReadSetRequest(rem.Content)
	if err != nil {
		return fmt.Errorf("openconfig: %s: %w", d.Name, err)
	}
	outside := func(what string, p *gpb.Path) error {
		return renderers.OutsideScope("openconfig", d, what+" "+pathString(p.GetElem()))
	}
	if p := req.GetPrefix(); p != nil && (len(p.GetElem()) > 0 || p.GetOrigin() != "") {
		return outside("prefix", p)
	}
	if len(req.GetExtension()) > 0 || len(req.GetUnionReplace()) > 0 {
		return renderers.OutsideScope("openconfig", d, "a SetRequest with extensions or union_replace")
	}
	leaves := map[string]bool{}
	for _, o := range OwnedPaths(d) {
		if o.Op == Update {
			leaves[o.Path] = true
		}
	}
	origin := func(p *gpb.Path) bool { return p.GetOrigin() == "" || p.GetOrigin() == "openconfig" }
	for _, p := range req.GetDelete() {
		if s := pathString(p.GetElem()); !origin(p) || s != "/qos" && !leaves[s] {
			return outside("delete", p)
		}
	}
	for _, u := range req.GetReplace() {
		if p := u.GetPath(); !origin(p) || pathString(p.GetElem()) != "/qos" {
			return outside("replace", p)
		}
	}
	for _, u := range req.GetUpdate() {
		if p := u.GetPath(); !origin(p) || !leaves[pathString(p.GetElem())] {
			return outside("update", p)
		}
	}
	return nil
}
