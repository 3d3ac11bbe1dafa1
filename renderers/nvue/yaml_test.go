package nvue

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"dwrr":          "dwrr",
		"default-lossy": "default-lossy",
		"on":            "'on'",
		"Off":           "'Off'",
		"yes":           "'yes'",
		"null":          "'null'",
		"26":            "'26'",
		"400G-3m":       "'400G-3m'",
		"to a:b":        "'to a:b'",
		"it's":          "'it''s'",
		"":              "''",
		"#x":            "'#x'",
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
		// Whatever the quoting, a YAML reader gets the string back.
		var back string
		if err := yaml.Unmarshal([]byte("v: "+quote(in)), &struct{ V *string }{&back}); err != nil || back != in {
			t.Errorf("quote(%q) reads back as %q (%v)", in, back, err)
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	got := []string{"swp10", "swp2", "swp1", "swp1s1", "swp1s0", "10", "9", "0", "a", "swp02"}
	slices.SortFunc(got, naturalCompare)
	want := []string{"0", "9", "10", "a", "swp1", "swp1s0", "swp1s1", "swp02", "swp2", "swp10"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestEmit(t *testing.T) {
	root := newNode("")
	q := root.child("qos")
	q.child("roce").set("enable", "on")
	q.child("roce").set("mode", "lossless")
	q.child("pfc").child("p").child("switch-priority").child("3")
	q.child("pfc").comment("why")
	q.child("pfc").child("p").set("tx", "enable").note("sent")
	q.child("pfc").child("p").set("port-buffer", int64(178176))
	got, err := emit([]string{"head", ""}, root)
	if err != nil {
		t.Fatal(err)
	}
	want := `# head
#
- set:
    qos:
      # why
      pfc:
        p:
          port-buffer: 178176
          switch-priority: {'3': {}}
          tx: enable  # sent
      roce: {enable: 'on', mode: lossless}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestEmitRefusesLineBreaks(t *testing.T) {
	for _, build := range []func(n *node){
		func(n *node) { n.set("k", "a\nb") },
		func(n *node) { n.child("a\rb") },
		func(n *node) { n.child("k").comment("x\ny") },
		func(n *node) { n.set("k", "v").note("x\u2028y") },
	} {
		root := newNode("")
		build(root)
		if _, err := emit(nil, root); err == nil {
			t.Error("emitted a line break")
		}
	}
	if _, err := emit([]string{"a\nb"}, newNode("")); err == nil || !strings.Contains(err.Error(), "control") {
		t.Errorf("header with a newline: %v", err)
	}
}

func TestWatchdogTimers(t *testing.T) {
	for _, c := range []struct {
		detect, restore, poll, robustness int
	}{
		{200, 400, 200, 1},
		{200, 100, 100, 2},
		{300, 100, 100, 3},
		{250, 100, 100, 3}, // detection rounds up to whole intervals
		{200, 0, 200, 1},
		{0, 0, 100, 3},
	} {
		p, r := watchdogTimers(c.detect, c.restore)
		if p != c.poll || r != c.robustness {
			t.Errorf("watchdogTimers(%d, %d) = %d, %d; want %d, %d", c.detect, c.restore, p, r, c.poll, c.robustness)
		}
	}
}

// TestSplitPort checks that the byte reader of split port names agrees
// with splitRE, which the desired state reads them with.
func TestSplitPort(t *testing.T) {
	for _, name := range []string{
		"swp1s0", "swp12s3", "swp64s7", "swp1s", "swps1", "swp1", "swp1s0x", "xswp1s0",
		"swp01s02", "swp1s99999999999999999999999", "eth0", "", "swp", "swp1s1s1", "swp١s0",
	} {
		parent, idx, ok := splitPort(name)
		m := splitRE.FindStringSubmatch(name)
		var want int
		wantOK := m != nil
		if wantOK {
			var err error
			if want, err = strconv.Atoi(m[2]); err != nil {
				wantOK = false
			}
		}
		if ok != wantOK || ok && (parent != m[1] || idx != want) {
			t.Errorf("splitPort(%q) = %q, %d, %v; splitRE reads %q", name, parent, idx, ok, m)
		}
	}
}
