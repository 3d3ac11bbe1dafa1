package platforms

import "testing"

func TestFamilies(t *testing.T) {
	if err := ValidateFamilies(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"7060X6-64PE": "tomahawk", "DS5000": "tomahawk", "7060DX5-64S": "tomahawk",
		"SN5600": "spectrum", "SN4600C": "spectrum", "SN3700": "spectrum",
		"N9364D-GX2A": "cloudscale", "N9332D-GX2B": "cloudscale",
	}
	for model, fam := range want {
		sw, ok := LookupSwitch(model)
		if !ok {
			t.Fatalf("%s not in the catalog", model)
		}
		f, ok := FamilyOf(sw)
		if !ok || f.Family != fam {
			t.Errorf("%s: family %q, want %q", model, f.Family, fam)
		}
	}
	if _, ok := FamilyOf(Switch{ASIC: "Unknown"}); ok {
		t.Error("an unknown ASIC has no family")
	}
}

func TestDecodeFamiliesRejects(t *testing.T) {
	for _, bad := range []string{
		`{"families": [{"family": "x", "match": ["X"], "headroomModel": "guess", "sources": {}}]}`,
		`{"families": [{"family": "x", "match": ["X"], "headroomModel": "min-frame-cell", "responseTimeNs": 0}]}`,
		`{"families": [{"family": "x", "match": [], "headroomModel": "sonic-spectrum", "pipelineLatencyKiB": 19, "macPhyDelayKiB": 0.8}]}`,
		`{"families": [], "extra": 1}`,
		`{"families": []} {}`,
	} {
		if _, err := decodeFamilies([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
