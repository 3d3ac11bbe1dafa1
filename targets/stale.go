package targets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// Digest is what a device ran, within the scope rocefab owns there, when
// it was read: the SHA-256 of its parsed running state.
type Digest struct {
	SHA256 string `json:"sha256"`
}

// OwnedDigest is the digest of a device's parsed running state: every
// element's path and value, in path order. The platform's Parse reads
// only the scope rocefab owns (docs/ownership.md), so configuration that
// other automation keeps (BGP, the hostname, the management port) does
// not enter it, and changing that does not make a saved plan stale.
func OwnedDigest(s renderers.State) Digest {
	es := s.Elements()
	slices.SortFunc(es, func(a, b renderers.Element) int { return strings.Compare(a.Path, b.Path) })
	// Each element as "len:path" "len:value" and a newline, appended
	// into a buffer the hash takes a block at a time: every device of a
	// plan is digested, and fmt's formatting of each element cost more
	// than the hash.
	h := sha256.New()
	b := make([]byte, 0, 32<<10)
	for _, e := range es {
		b = strconv.AppendInt(b, int64(len(e.Path)), 10)
		b = append(b, ':')
		b = append(b, e.Path...)
		b = strconv.AppendInt(b, int64(len(e.Value)), 10)
		b = append(b, ':')
		b = append(b, e.Value...)
		b = append(b, '\n')
		if len(b) >= 16<<10 {
			h.Write(b)
			b = b[:0]
		}
	}
	h.Write(b)
	return Digest{SHA256: hex.EncodeToString(h.Sum(nil))}
}

// maxStalePaths bounds the paths a stale device is described by.
const maxStalePaths = 10

// staleness says which owned paths of a device differ now from when dp
// was planned, one phrase per path in path order ("/qos/... changed").
// What the device ran then is the desired state the plan recorded with
// each planned change's running value put back (a path the plan did not
// change ran its desired value); desired is nil for a device the plan
// records no desired state of (its desired state could not be computed),
// which is then described as a whole.
func staleness(dp DevicePlan, desired []renderers.Element, now renderers.State) []string {
	if desired == nil {
		return []string{"what it runs within rocefab's scope changed"}
	}
	then := make(map[string]string, len(desired))
	for _, e := range desired {
		then[e.Path] = e.Value
	}
	for _, c := range dp.Changes {
		if c.Before == nil {
			delete(then, c.Path)
		} else {
			then[c.Path] = *c.Before
		}
	}
	var out []string
	for _, e := range now.Elements() {
		switch v, ok := then[e.Path]; {
		case !ok:
			out = append(out, e.Path+" added")
		case v != e.Value:
			out = append(out, e.Path+" changed")
		}
		delete(then, e.Path)
	}
	for p := range then {
		out = append(out, p+" removed")
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"what it runs within rocefab's scope changed"}
	}
	if len(out) > maxStalePaths {
		out = append(out[:maxStalePaths], fmt.Sprintf("and %d more", len(out)-maxStalePaths))
	}
	return out
}
