package platforms

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestSONiCApply(t *testing.T) {
	if _, err := loadSONiCApply(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range SONiCReleases() {
		got = append(got, r.Release)
	}
	if !slices.Equal(got, []string{"202411", "202505", "202511"}) || DefaultSONiCRelease() != "202411" {
		t.Errorf("releases %v, default %s", got, DefaultSONiCRelease())
	}
	if b, _ := SONiCApply("BREAKOUT_CFG"); b.Apply != ApplyBreakout || b.Disruption != PortFlap {
		t.Errorf("BREAKOUT_CFG: %+v", b)
	}
	if _, err := NewSONiCApplier("202305", "DS5000"); err == nil || !strings.Contains(err.Error(), "202411, 202505, 202511") {
		t.Errorf("an unknown release: %v", err)
	}
}

// TestSONiCGCUFilesAreTheBranches: each release's validator file is the
// one its branch ships, read as data: the fields, operations and ASICs
// the tests below rely on are there, with the commit recorded.
func TestSONiCGCUFilesAreTheBranches(t *testing.T) {
	d, err := loadSONiCApply()
	if err != nil {
		t.Fatal(err)
	}
	fields := func(release, table string) []string {
		var out []string
		for _, s := range d.gcu[release].validator[table].scenarios {
			out = append(out, s.val.Fields...)
		}
		return out
	}
	for _, c := range []struct {
		release, table string
		want           []string
	}{
		{"202411", "WRED_PROFILE", []string{"azure_lossless/green_min_threshold", "azure_lossless/green_max_threshold", "azure_lossless/green_drop_probability"}},
		{"202505", "WRED_PROFILE", []string{"green_min_threshold", "green_max_threshold", "green_drop_probability"}},
		{"202511", "WRED_PROFILE", nil},
		{"202411", "BUFFER_POOL", []string{"ingress_lossless_pool/xoff", "ingress_lossless_pool/size", "egress_lossy_pool/size"}},
		{"202511", "BUFFER_POOL", nil},
		{"202411", "BUFFER_PROFILE", []string{"dynamic_th", "xoff"}},
		{"202511", "BUFFER_PROFILE", []string{"dynamic_th", "xoff", "packet_discard_action"}},
	} {
		if got := fields(c.release, c.table); !slices.Equal(got, c.want) {
			t.Errorf("%s %s fields %q, want %q", c.release, c.table, got, c.want)
		}
	}
	if _, ok := d.gcu["202511"].validator["WRED_PROFILE"]; ok {
		t.Error("202511 still validates WRED_PROFILE")
	}
	for _, r := range d.releases {
		raw, _ := sonicGCUFS.ReadFile("sonic_gcu/" + r.Release + ".json")
		var top map[string]json.RawMessage
		if err := json.Unmarshal(raw, &top); err != nil || top["README"] == nil {
			t.Errorf("%s: not a verbatim gcu_field_operation_validators.conf.json: %v", r.Release, err)
		}
		if !strings.Contains(r.Source, r.Commit[:8]) {
			t.Errorf("%s: the source does not name commit %s", r.Release, r.Commit)
		}
	}
}

// TestSONiCASICs: get_asic_name as each release runs it finds the
// catalog's HWSKUs, or not.
func TestSONiCASICs(t *testing.T) {
	for _, c := range []struct{ release, model, want string }{
		{"202411", "SN5600", "spc4"},
		{"202411", "SN4600C", "spc3"},
		{"202411", "SN3700", "spc2"},
		{"202411", "7060X6-64PE", "th5"},
		{"202511", "7060X6-64PE", "th5"},
		// DS5000 and Arista-7060DX5-64S are in no list of any release.
		{"202411", "DS5000", "unknown"},
		{"202511", "DS5000", "unknown"},
		{"202505", "7060DX5-64S", "unknown"},
	} {
		a, err := NewSONiCApplier(c.release, c.model)
		if err != nil {
			t.Fatal(err)
		}
		if a.ASIC() != c.want {
			t.Errorf("%s on %s: ASIC %s, want %s", c.model, c.release, a.ASIC(), c.want)
		}
	}
}

// TestSONiCMethods holds the method of each change rocefab makes to the
// rules of the release it came from.
func TestSONiCMethods(t *testing.T) {
	row := func(fields ...string) []string { return fields }
	for _, c := range []struct {
		release, model, op, path string
		members                  []string
		want                     string
	}{
		// WRED_PROFILE: 202411 admits a replace of three azure_lossless
		// fields only; 202505 a replace of green_* in any profile; 202511
		// has no validator.
		{"202411", "SN5600", "replace", "WRED_PROFILE/roce_ecn/green_max_threshold", nil, ApplyReload},
		{"202411", "SN5600", "replace", "WRED_PROFILE/AZURE_LOSSLESS/green_max_threshold", nil, ApplyPatch},
		{"202505", "SN5600", "replace", "WRED_PROFILE/roce_ecn/green_max_threshold", nil, ApplyPatch},
		{"202505", "SN5600", "add", "WRED_PROFILE/roce_ecn", row("ecn", "green_max_threshold"), ApplyReload},
		{"202505", "SN5600", "replace", "WRED_PROFILE/roce_ecn/ecn", nil, ApplyReload},
		{"202511", "SN5600", "add", "WRED_PROFILE/roce_ecn", row("ecn", "green_max_threshold"), ApplyPatch},
		{"202511", "DS5000", "add", "WRED_PROFILE", row("roce_ecn"), ApplyPatch},
		// BUFFER_PROFILE: a whole profile carries pool, refused before
		// 202511's buffer_profile_config_update_validator.
		{"202411", "SN5600", "add", "BUFFER_PROFILE/pg_lossless_400000_5m_profile", row("dynamic_th", "pool", "size", "xoff", "xon"), ApplyReload},
		{"202505", "7060X6-64PE", "add", "BUFFER_PROFILE/roce_lossless", row("dynamic_th", "pool"), ApplyReload},
		{"202511", "7060X6-64PE", "add", "BUFFER_PROFILE/roce_lossless", row("dynamic_th", "pool"), ApplyPatch},
		{"202511", "DS5000", "remove", "BUFFER_PROFILE/roce_lossless", nil, ApplyPatch},
		{"202411", "SN5600", "replace", "BUFFER_PROFILE/pg_lossless_400000_5m_profile/xoff", nil, ApplyPatch},
		{"202411", "SN5600", "replace", "BUFFER_PROFILE/pg_lossless_400000_5m_profile/size", nil, ApplyReload},
		{"202511", "7060X6-64PE", "replace", "BUFFER_PROFILE/roce_lossless/dynamic_th", nil, ApplyPatch},
		{"202511", "DS5000", "replace", "BUFFER_PROFILE/roce_lossless/dynamic_th", nil, ApplyReload},
		// BUFFER_POOL: 202411 admits a size replace on listed ASICs, 202511 nothing.
		{"202411", "SN5600", "replace", "BUFFER_POOL/ingress_lossless_pool/size", nil, ApplyPatch},
		{"202411", "DS5000", "replace", "BUFFER_POOL/ingress_lossless_pool/size", nil, ApplyReload},
		{"202511", "SN5600", "replace", "BUFFER_POOL/ingress_lossless_pool/size", nil, ApplyReload},
		// PFC_WD: the ASIC must be found; the GLOBAL row's field is
		// matched lowercased, a member of an added row as written.
		{"202411", "SN5600", "add", "PFC_WD/Ethernet0", row("action", "detection_time", "restoration_time"), ApplyPatch},
		{"202411", "SN5600", "replace", "PFC_WD/GLOBAL/POLL_INTERVAL", nil, ApplyPatch},
		{"202411", "SN5600", "add", "PFC_WD/GLOBAL", row("POLL_INTERVAL"), ApplyReload},
		{"202411", "SN5600", "remove", "PFC_WD/GLOBAL/POLL_INTERVAL", nil, ApplyReload},
		{"202411", "SN5600", "add", "PFC_WD", row("Ethernet0"), ApplyReload},
		{"202411", "DS5000", "replace", "PFC_WD/Ethernet0/action", nil, ApplyReload},
		{"202511", "7060DX5-64S", "add", "PFC_WD/Ethernet0", row("action"), ApplyReload},
		{"202511", "7060X6-64PE", "replace", "PFC_WD/Ethernet0/action", nil, ApplyPatch},
		// The patch sorter (PR #4219).
		{"202511", "SN5600", "replace", "DSCP_TO_TC_MAP/AZURE/26", nil, ApplyReload},
		{"202411", "SN5600", "add", "TC_TO_QUEUE_MAP/AZURE", row("3"), ApplyReload},
		{"202511", "SN5600", "replace", "TC_TO_PRIORITY_GROUP_MAP/AZURE/3", nil, ApplyReload},
		{"202511", "SN5600", "replace", "SCHEDULER/scheduler.bulk/weight", nil, ApplyPatch},
		{"202511", "SN5600", "replace", "SCHEDULER/scheduler.bulk/type", nil, ApplyReload},
		{"202511", "SN5600", "add", "SCHEDULER/scheduler.new", row("type", "weight"), ApplyReload},
		{"202511", "SN5600", "remove", "BUFFER_PG/Ethernet0|3", nil, ApplyPatch},
		{"202511", "SN5600", "remove", "BUFFER_PG/Ethernet0|3/profile", nil, ApplyReload},
		{"202511", "SN5600", "remove", "PORT_QOS_MAP/Ethernet0", nil, ApplyReload},
		{"202411", "DS5000", "replace", "PORT_QOS_MAP/Ethernet0/pfc_enable", nil, ApplyPatch},
		// Tables no rule gates, a breakout, a table the catalog lacks.
		{"202411", "DS5000", "replace", "QUEUE/Ethernet0|3/scheduler", nil, ApplyPatch},
		{"202411", "DS5000", "replace", "PORT/Ethernet0/speed", nil, ApplyPatch},
		{"202411", "DS5000", "add", "BREAKOUT_CFG/Ethernet0", row("brkout_mode"), ApplyBreakout},
		{"202411", "DS5000", "add", "ACL_TABLE/x", row("type"), ApplyReload},
	} {
		a, err := NewSONiCApplier(c.release, c.model)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Method(c.op, strings.Split(c.path, "/"), c.members); got != c.want {
			t.Errorf("%s on %s (%s): %s /%s %v = %s, want %s", c.model, c.release, a.ASIC(), c.op, c.path, c.members, got, c.want)
		}
	}
}
