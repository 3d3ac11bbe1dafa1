package renderers

import "testing"

func TestAppendEscaped(t *testing.T) {
	for _, c := range []struct{ s, special, want string }{
		{"plain", "]\\\n\r", "plain"},
		{"a]b\\c\nd\re\"", "]\\\n\r", `a\]b\\c\nd\re"`},
		{"a]b\\c\nd\re\"", "\\\"\n", "a]b\\\\c\\nd\re\\\""},
	} {
		if got := string(AppendEscaped([]byte("x="), c.s, c.special)); got != "x="+c.want {
			t.Errorf("AppendEscaped(%q, %q) = %q, want %q", c.s, c.special, got, "x="+c.want)
		}
	}
}
