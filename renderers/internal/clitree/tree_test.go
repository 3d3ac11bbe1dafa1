package clitree

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
)

// testDialect is a small EOS-like dialect: three columns a level, `end`
// last, key rules for single-valued commands, one kept negation.
var testDialect = &Dialect{
	Indent: 3,
	End:    "end",
	Reset:  "default ",
	Keys: []KeyRule{
		{Prefix: "mtu ", Overrides: true},
		{Prefix: "description ", Overrides: true},
		{Prefix: "map ", Re: regexp.MustCompile(`^map (.+) to class [0-9]+$`)},
	},
	Kinds:     []KindRule{{Top: "interface ", Leaf: "mtu", Kind: "mtu"}, {Top: "map ", Kind: "dscp-map"}},
	Negations: []Negation{{Line: "no priority"}},
}

var testScope = Scope{
	Whole: []Match{{Prefix: "map "}, {Prefix: "profile P", Re: regexp.MustCompile(`^profile P$`)}},
	Parts: []Part{{
		Parent:   func(l string) bool { return l == "interface E1" || l == "interface E2" },
		Children: []Match{{Prefix: "mtu "}, {Prefix: "description "}},
	}},
}

// TestParseBytes checks that printing a parsed text gives it back byte for
// byte, whatever its line endings, indentation and comments.
func TestParseBytes(t *testing.T) {
	for _, text := range []string{
		"",
		"\n",
		"a",
		"a\n",
		"a\r\nb\r\n",
		"a\nb\r\n  c\r",
		"! comment\ninterface E1\n   mtu 9000\n   !\n   ! x\n!\nend\n",
		"x\n\t\ty\n  z\n\n\n w\n",
	} {
		if got := parse([]byte(text)).Bytes(); string(got) != text {
			t.Errorf("Parse(%q).Bytes() = %q", text, got)
		}
	}
}

// TestTree checks the nesting: by indentation, a comment closing the modes
// it is not indented into.
func TestTree(t *testing.T) {
	tr := parse([]byte("profile P\n   q 1\n      prio\n   !\n   q 2\n!\nmtu 1\n"))
	got := tr.Lines(1)
	want := []string{"profile P", " q 1", "  prio", " q 2", "mtu 1"}
	if !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}

// TestElements checks keys, values, kinds and the fallback to whole lines
// for two lines of one key in a mode.
func TestElements(t *testing.T) {
	tr := testScope.Restrict(parse([]byte("interface E1\n   mtu 9000\n   ip address 1\n" +
		"interface E3\n   mtu 1\nmap 1 2 to class 3\nprofile P\n   no priority\n   x 1\n   x 1\nhostname h\n")))
	var got []string
	for _, e := range testDialect.Elements(tr) {
		got = append(got, e.Path+"="+e.Value+"/"+e.Kind)
	}
	want := []string{
		"interface E1=/", "interface E1 > mtu=9000/mtu", "map * to class 3=1 2/dscp-map",
		"profile P=/", "profile P > priority=no/", "profile P > x 1=/",
	}
	if !slices.Equal(got, want) {
		t.Errorf("elements\n%q\nwant\n%q", got, want)
	}
}

// TestRemediateApply checks the order of the lines and that applying them
// converges and keeps the foreign lines.
func TestRemediateApply(t *testing.T) {
	running := "hostname h\n!\ninterface E1\n   ip address 1\n   mtu 1500\n   description old\n!\n" +
		"map 1 2 to class 3\nprofile P\n   no priority\n   gone 1\n      child\n!\nend\n"
	desired := "interface E1\n   mtu 9000\ninterface E2\n   mtu 9000\nmap 1 to class 3\nprofile P\n   priority strict\n"
	have := testScope.Restrict(parse([]byte(running)))
	want := testScope.Restrict(parse([]byte(desired)))
	lines := testDialect.Remediate(have, want, testScope)
	wantLines := []string{
		"no map 1 2 to class 3",
		"interface E1",
		"   no description old",
		"   mtu 9000",
		"   exit",
		"interface E2",
		"   mtu 9000",
		"   exit",
		"map 1 to class 3",
		"profile P",
		"   default priority",
		"   priority strict",
		"   no gone 1",
		"   exit",
	}
	if !slices.Equal(lines, wantLines) {
		t.Fatalf("remediation\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
	out, err := testDialect.Apply([]byte(running), Text(lines), testScope)
	if err != nil {
		t.Fatal(err)
	}
	after := testScope.Restrict(parse(out))
	if g, w := testDialect.Elements(after), testDialect.Elements(want); !slices.Equal(g, w) {
		t.Errorf("after apply\n%s\nelements %v\nwant %v", out, g, w)
	}
	if f0, f1 := testScope.Foreign(parse([]byte(running))), testScope.Foreign(parse(out)); !slices.Equal(f0, f1) {
		t.Errorf("foreign lines changed: %q -> %q", f0, f1)
	}
	if !bytes.HasSuffix(out, []byte("end\n")) {
		t.Errorf("a new section went after end:\n%s", out)
	}
	if _, err := testDialect.Apply([]byte(running), []byte("hostname x\n"), testScope); err == nil {
		t.Error("Apply took a line outside the owned scope")
	}
}

// FuzzParse checks that printing a parsed text gives it back and that
// restricting, flattening, remediating and applying never panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte("interface E1\n   mtu 1\n"), []byte("map 1 to class 2\n"))
	f.Add([]byte("profile P\n\tno priority\r\n x\n"), []byte("profile P\n   priority strict\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ta := parse(a)
		if got := ta.Bytes(); !bytes.Equal(got, a) {
			t.Fatalf("Parse(%q).Bytes() = %q", a, got)
		}
		have, want := testScope.Restrict(ta), testScope.Restrict(parse(b))
		testDialect.Elements(have)
		lines := testDialect.Remediate(have, want, testScope)
		if _, err := testDialect.Apply(a, Text(lines), testScope); err != nil {
			t.Fatalf("Apply: %v\n%s", err, Text(lines))
		}
	})
}

// TestBuilder: a built model prints what was written, in order, and nests
// lines as the parser of a running configuration does: a line below the
// last line one level up, a comment closing the modes at its depth. Its
// lines keep the elements the renderer named.
func TestBuilder(t *testing.T) {
	b := NewBuilder(3)
	b.Comment(0, "! head")
	b.Line(0, "map", "qos map dscp 26 to traffic-class 3")
	b.Line(0, "", "qos profile P")
	b.Line(1, "trust", "qos trust dscp")
	b.Comment(1, "!")
	b.Line(1, "", "tx-queue 3")
	b.Comment(2, "! a queue")
	b.LineBytes(2, "ecn", []byte("random-detect ecn minimum-threshold 1 bytes"))
	b.Line(1, "pfc", "priority-flow-control on")
	b.CommentBytes(0, []byte("!"))
	b.Line(0, "", "interface E1")
	b.Line(1, "mtu", "mtu 9214")
	tr := b.Tree()
	want := "! head\nqos map dscp 26 to traffic-class 3\nqos profile P\n   qos trust dscp\n   !\n   tx-queue 3\n      ! a queue\n" +
		"      random-detect ecn minimum-threshold 1 bytes\n   priority-flow-control on\n!\ninterface E1\n   mtu 9214\n"
	if got := string(tr.Bytes()); got != want {
		t.Fatalf("printed\n%s\nwant\n%s", got, want)
	}
	if !tr.built || parse(tr.Bytes()).built {
		t.Error("a built tree and a parsed one are told apart wrongly")
	}
	if got, want := tr.Lines(3), parse(tr.Bytes()).Lines(3); !slices.Equal(got, want) {
		t.Errorf("the model nests %q, the parser %q", got, want)
	}
	d := &Dialect{Indent: 3}
	var kinds []string
	for _, e := range d.Elements(tr) {
		kinds = append(kinds, e.Path+"="+e.Kind)
	}
	wantKinds := []string{"interface E1=", "interface E1 > mtu 9214=mtu", "qos map dscp 26 to traffic-class 3=map", "qos profile P=",
		"qos profile P > priority-flow-control on=pfc", "qos profile P > qos trust dscp=trust", "qos profile P > tx-queue 3=",
		"qos profile P > tx-queue 3 > random-detect ecn minimum-threshold 1 bytes=ecn"}
	if !slices.Equal(kinds, wantKinds) {
		t.Errorf("elements %q, want %q", kinds, wantKinds)
	}
	p := &Platform{Name: "test", Dialect: d, Scope: func(*ir.Device) Scope { return testScope }}
	if _, err := p.State(nil, parse(tr.Bytes())); err == nil || !strings.Contains(err.Error(), "not a configuration read from text") {
		t.Errorf("State of a parsed tree: %v", err)
	}
}

// TestMarkBlocks: a block's own mark goes directly above it, the marks of
// its lines above it once each in order, comments are not marked, and a
// block without marks gets none.
func TestMarkBlocks(t *testing.T) {
	b := NewBuilder(2)
	b.Comment(0, "! head")
	b.Line(0, "", "policy-map P")
	b.Line(1, "", "class A")
	b.Line(2, "", "set x 1")
	b.Line(2, "", "set y 1")
	b.Line(1, "", "class B")
	b.Line(2, "", "set x 2")
	b.Line(0, "", "interface E1")
	b.Line(1, "", "mtu 9216")
	b.Line(0, "", "feature z")
	tr := b.Tree()
	tr.MarkBlocks(func(line string) string {
		for _, p := range []string{"set x", "set y", "policy-map", "feature"} {
			if strings.HasPrefix(line, p) {
				return "! verify: " + p
			}
		}
		return ""
	})
	want := "! head\n! verify: policy-map\n! verify: set x\n! verify: set y\npolicy-map P\n  class A\n    set x 1\n    set y 1\n  class B\n    set x 2\n" +
		"interface E1\n  mtu 9216\n! verify: feature\nfeature z\n"
	if got := string(tr.Bytes()); got != want {
		t.Errorf("marked\n%s\nwant\n%s", got, want)
	}
}
