package hosttest

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// HTBClass is one HTB class as tc reports it.
type HTBClass struct {
	RateBps int64 // bytes/s
	Packets int64
}

// HTBClasses reads the HTB classes of dev, by handle, with `tc -s -j
// class show dev DEV` run by in (Netns.In, or a command of the same
// shape), whose output is JSON on newer iproute2 and text on older (6.1
// prints classes as text even with -j).
func HTBClasses(t testing.TB, in func(...string) (string, error), dev string) map[string]HTBClass {
	t.Helper()
	out, err := in("tc", "-s", "-j", "class", "show", "dev", dev)
	if err != nil {
		t.Fatalf("tc class show: %v: %s", err, out)
	}
	classes := map[string]HTBClass{}
	if strings.HasPrefix(strings.TrimSpace(out), "[") {
		for _, obj := range strings.Split(out, `{"class":`)[1:] {
			h := regexp.MustCompile(`"handle":"([^"]+)"`).FindStringSubmatch(obj)
			r := regexp.MustCompile(`"rate":(\d+)`).FindStringSubmatch(obj)
			p := regexp.MustCompile(`"packets":(\d+)`).FindStringSubmatch(obj)
			if h == nil || r == nil {
				t.Fatalf("cannot read class %s", obj)
			}
			c := HTBClass{}
			c.RateBps, _ = strconv.ParseInt(r[1], 10, 64)
			if p != nil {
				c.Packets, _ = strconv.ParseInt(p[1], 10, 64)
			}
			classes[h[1]] = c
		}
		return classes
	}
	cur := ""
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) > 2 && f[0] == "class" && f[1] == "htb" {
			cur = f[2]
			c := HTBClass{RateBps: -1}
			for i := range f[:len(f)-1] {
				if f[i] == "rate" {
					c.RateBps = parseTCRate(t, f[i+1])
				}
			}
			classes[cur] = c
		} else if len(f) > 4 && f[0] == "Sent" && cur != "" {
			c := classes[cur]
			c.Packets, _ = strconv.ParseInt(f[3], 10, 64)
			classes[cur] = c
		}
	}
	return classes
}

// parseTCRate reads a rate as tc prints it ("50Gbit") into bytes/s.
func parseTCRate(t testing.TB, s string) int64 {
	t.Helper()
	m := regexp.MustCompile(`^(\d+)([KMGT]?)bit$`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("cannot read tc rate %q", s)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	mult := map[string]int64{"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m[2]]
	return n * mult / 8
}
