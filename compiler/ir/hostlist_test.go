package ir

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCompress(t *testing.T) {
	seq := func(prefix string, w, lo, hi int) []string {
		var out []string
		for i := lo; i <= hi; i++ {
			out = append(out, fmt.Sprintf("%s%0*d", prefix, w, i))
		}
		return out
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{seq("gpu-", 4, 0, 63), "gpu-[0000-0063]"},
		{append(seq("gpu-", 4, 128, 128), seq("gpu-", 4, 0, 63)...), "gpu-[0000-0063,0128]"},
		{[]string{"gpu-0005"}, "gpu-0005"},
		{[]string{"gpu-0005", "gpu-0005"}, "gpu-0005"},
		{nil, ""},
		// A range keeps the width of its first number: 8..10 unpadded is
		// one range, 08..10 padded another.
		{[]string{"n8", "n9", "n10"}, "n[8-10]"},
		{[]string{"n08", "n09", "n10"}, "n[08-10]"},
		{[]string{"n9", "n010"}, "n[9,010]"},
		{[]string{"n1", "n01"}, "n[1,01]"},
		// The last run of digits is bracketed; what follows is a suffix.
		{[]string{"r1-n1.lab", "r1-n2.lab", "r2-n1.lab"}, "r1-n[1-2].lab,r2-n1.lab"},
		{[]string{"spine", "leaf-a", "gpu-1"}, "leaf-a,spine,gpu-1"},
		{seq("leaf-r", 1, 0, 7), "leaf-r[0-7]"},
	} {
		got, err := CompressHostlist(c.names)
		if err != nil || got != c.want {
			t.Errorf("CompressHostlist(%v) = %q, %v; want %q", c.names, got, err, c.want)
		}
	}
	if _, err := CompressHostlist([]string{"a,b"}); err == nil {
		t.Error("a name with a comma was compressed")
	}
	// A range holds at most Slurm's 65,536 names.
	got, _ := CompressHostlist(seq("n", 6, 0, maxRange))
	if got != "n[000000-065535,065536]" {
		t.Errorf("a range past Slurm's limit: %q", got)
	}
}

func TestExpand(t *testing.T) {
	// The examples of topology.conf(5) (SchedMD/slurm@284c3b95:doc/man/man5/topology.conf.5).
	got, err := ExpandHostlist("tux[0-3,12,18-20]")
	want := []string{"tux0", "tux1", "tux2", "tux3", "tux12", "tux18", "tux19", "tux20"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Expand = %v, %v; want %v", got, err, want)
	}
	got, err = ExpandHostlist("dev[0-5],node[01-02].x,solo")
	want = []string{"dev0", "dev1", "dev2", "dev3", "dev4", "dev5", "node01.x", "node02.x", "solo"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Expand = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"a[3-1]", "a[1-2", "a]", "a[x]", "a[1-2]b[3]", "a,,b", "a[0-1000000]", "a[-1]", "a b"} {
		if got, err := ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q) = %v, want an error", bad, got)
		}
	}
}

// TestRoundTrip: for random sets of names, ExpandHostlist(CompressHostlist(names)) is the
// set again, nothing more, nothing less.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	prefixes := []string{"gpu-", "n", "leaf-r1-", "a.b_", "x9y-", ""}
	suffixes := []string{"", "", ".lab", "-a", "_z"}
	for i := range 3000 {
		set := map[string]bool{}
		for range r.IntN(40) {
			p := prefixes[r.IntN(len(prefixes))]
			s := suffixes[r.IntN(len(suffixes))]
			w := r.IntN(5)
			n := r.IntN(30)
			if r.IntN(4) == 0 {
				n = r.IntN(2000)
			}
			name := fmt.Sprintf("%s%0*d%s", p, w, n, s)
			if r.IntN(10) == 0 {
				name = p + "plain" + s
			}
			if !nameOK(name) {
				continue
			}
			set[name] = true
		}
		var names []string
		for n := range set {
			names = append(names, n)
		}
		expr := roundTrip(t, names)
		// The order names come in changes nothing.
		r.Shuffle(len(names), func(a, b int) { names[a], names[b] = names[b], names[a] })
		if again, _ := CompressHostlist(names); again != expr {
			t.Fatalf("case %d: order changed the output: %q vs %q", i, again, expr)
		}
		if strings.Contains(expr, " ") {
			t.Fatalf("space in %q", expr)
		}
	}
}

// FuzzHostlist: Expand never panics, and whatever it reads, compressing
// the names and expanding again gives the same set.
func FuzzHostlist(f *testing.F) {
	for _, s := range []string{"gpu-[0000-0063]", "tux[0-3,12,18-20]", "n[8-10],a", "a[1-2]b", "x[", "[]", "a,,b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		names, err := ExpandHostlist(expr)
		if err != nil || len(names) > 100000 {
			return
		}
		slices.Sort(names)
		roundTrip(t, slices.Compact(names))
	})
}

// roundTrip compresses names, which must not repeat, and returns the
// expression, failing t unless it expands to exactly those names again.
func roundTrip(t *testing.T, names []string) string {
	t.Helper()
	expr, err := CompressHostlist(names)
	if err != nil {
		t.Fatalf("CompressHostlist(%v): %v", names, err)
	}
	back, err := ExpandHostlist(expr)
	if err != nil {
		t.Fatalf("ExpandHostlist(%q): %v", expr, err)
	}
	if len(back) != len(names) {
		t.Fatalf("%q expands to %d names, want %d (duplicates or extras)", expr, len(back), len(names))
	}
	want := slices.Sorted(slices.Values(names))
	slices.Sort(back)
	if !slices.Equal(back, want) {
		t.Fatalf("%q expands to %v, want %v", expr, back, want)
	}
	return expr
}
