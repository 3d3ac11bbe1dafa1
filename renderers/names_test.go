package renderers

import (
	"testing"

	"github.com/rocefab/rocefab/schema"
)

func TestNamePatternIsTheSchemas(t *testing.T) {
	if NamePattern != schema.NamePattern {
		t.Fatalf("renderers.NamePattern %q differs from schema.NamePattern %q", NamePattern, schema.NamePattern)
	}
}

func FuzzValidName(f *testing.F) {
	for _, s := range []string{"", "a", "gpu-0000", "Ethernet1/1", "-a", "a;b", "x$(y)", "a\nb", "a b", "é", "a.b_c/d-e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if validName(s) != nameRE.MatchString(s) {
			t.Fatalf("validName(%q) = %v, the pattern says %v", s, validName(s), nameRE.MatchString(s))
		}
	})
}

func TestValidNameAgrees(t *testing.T) {
	long := "a123456789012345678901234567890123456789012345678901234567890123"
	for _, s := range []string{"", "a", long, long + "4", "-a", "a-", "a;b", "x$(y)", "a`b`", "a'b", "a\"b", "a\nb", "a b", "é"} {
		if validName(s) != nameRE.MatchString(s) {
			t.Errorf("validName(%q) = %v, the pattern says %v", s, validName(s), nameRE.MatchString(s))
		}
	}
}
