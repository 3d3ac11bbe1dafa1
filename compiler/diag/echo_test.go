package diag

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	for _, c := range []struct{ in, want string }{
		{"leaf-00", `"leaf-00"`},
		{strings.Repeat("b", EchoBytes), `"` + strings.Repeat("b", EchoBytes) + `"`},
		{long, `"` + strings.Repeat("a", EchoBytes) + `…" (100000 bytes)`},
		// Cut at a character's start: é is two bytes, the 64th byte is in
		// the middle of one.
		{strings.Repeat("a", EchoBytes-1) + strings.Repeat("é", 10), `"` + strings.Repeat("a", EchoBytes-1) + `…" (83 bytes)`},
		{strings.Repeat("\n", 100), `"` + strings.Repeat(`\n`, EchoBytes) + `…" (100 bytes)`},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%.20q...) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestShorten(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	msg := `name: invalid value "` + long + `" (out of bound =~"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")`
	got := Shorten(msg)
	want := `name: invalid value "` + strings.Repeat("a", EchoBytes) + `…" (100000 bytes) (out of bound =~"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")`
	if got != want {
		t.Errorf("Shorten:\n got %s\nwant %s", got, want)
	}
	if short := `device name "a;b": names are letters`; Shorten(short) != short {
		t.Errorf("Shorten changed a short message: %s", Shorten(short))
	}
	// Not Go's escapes: cut before a backslash, never inside an escape.
	odd := `value "` + strings.Repeat("x", EchoBytes-1) + `\q` + strings.Repeat("y", 200) + `" here`
	if got := Shorten(odd); got != `value "`+strings.Repeat("x", EchoBytes-1)+`…" (265 bytes) here` {
		t.Errorf("Shorten(odd) = %s", got)
	}
}
