package targets

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// A saved plan is a record of what plan computed, not an authority on what
// to push: anyone who can write the file can change it, and a checksum the
// file states about itself proves only that it agrees with itself. So
// apply recomputes every device's desired state, changes and remediation
// from the intent (which the plan binds by digest) and the running
// configuration it has just read (whose digest must be the one the plan
// recorded), and refuses the plan, before anything is pushed to any
// device, when one differs. Only then does it use the desired states the
// plan recorded, to gate each wave.

// TamperedError refuses a plan whose desired states, changes or
// remediation are not what the intent and the recorded running
// configurations give.
type TamperedError struct {
	Devices []TamperedDevice
}

// TamperedDevice is a device whose planned push is not the one its intent
// and running configuration give: Line is the 1-based line of the plan's
// remediation where the two first differ (0 when the remediations are
// equal and the changes differ), Planned and Computed that line in each.
type TamperedDevice struct {
	Device   string `json:"device"`
	What     string `json:"what"`
	Line     int    `json:"line,omitempty"`
	Planned  string `json:"planned,omitempty"`
	Computed string `json:"computed,omitempty"`
}

func (e *TamperedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the plan does not match its intent: for %s it pushes something the intent and the running configuration it was made against do not give (the plan file was edited, or made by something else); nothing was pushed, make a new plan:",
		count(len(e.Devices), "device", "devices"))
	for _, d := range e.Devices {
		fmt.Fprintf(&b, "\n  %s: %s", d.Device, d.What)
		if d.Line > 0 {
			fmt.Fprintf(&b, " at remediation line %d: the plan has %s, the intent gives %s", d.Line, lineText(d.Planned), lineText(d.Computed))
		}
	}
	return b.String()
}

// lineText quotes a remediation line for an error, shortened so that a
// huge line does not flood the terminal.
func lineText(s string) string {
	if s == "" {
		return "nothing"
	}
	return quoteShort(s)
}

// quoteShort quotes s, shortened as lineText shortens it.
func quoteShort(s string) string {
	const most = 200
	if len(s) > most {
		return fmt.Sprintf("%q... (%d bytes)", s[:most], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// verify compares what the plan pushes to a device with what the platform
// computes from the same running state and desired state; nil when they
// are the same. empty says the device runs no configuration yet, which
// the plan creates.
func verify(dp DevicePlan, empty bool, changes []renderers.Change, rem renderers.Remediation) *TamperedDevice {
	bad := func(what string) *TamperedDevice { return &TamperedDevice{Device: dp.Device, What: what} }
	if len(changes) == 0 {
		return bad(fmt.Sprintf("the plan has action %s, and the device already runs what the intent wants", dp.Action))
	}
	if dp.Remediation == nil {
		return bad("the plan has no remediation")
	}
	if dp.Remediation.Format != rem.Format {
		return bad(fmt.Sprintf("the plan's remediation is in %q, the platform's in %q", dp.Remediation.Format, rem.Format))
	}
	if !bytes.Equal(dp.Remediation.Content, rem.Content) {
		n, planned, computed := firstDifference(dp.Remediation.Content, rem.Content)
		t := bad("the remediation differs")
		t.Line, t.Planned, t.Computed = n, planned, computed
		return t
	}
	if !slices.EqualFunc(dp.Changes, changes, sameChange) {
		return bad(fmt.Sprintf("the plan lists %s, the intent gives %s", count(len(dp.Changes), "change", "changes"), count(len(changes), "change", "changes")))
	}
	want := Update
	if empty {
		want = Create
	}
	if dp.Action != want {
		return bad(fmt.Sprintf("the plan has action %s, the running configuration gives %s", dp.Action, want))
	}
	ds := make([]renderers.Disruption, len(changes))
	for i, c := range changes {
		ds[i] = c.Disruption
	}
	if w := renderers.Worst(ds...); dp.Disruption != w {
		return bad(fmt.Sprintf("the plan says its disruption is %q, the changes are %q", dp.Disruption, w))
	}
	return nil
}

// sameDesired compares the desired state the plan records for a device
// with the one the platform computes from the intent now; nil when they
// are the same, element for element. The recorded state is what apply
// gates the device's wave on, so an edit of it is refused as an edit of
// the remediation is.
func sameDesired(device string, recorded, computed []renderers.Element) *TamperedDevice {
	for i := range max(len(recorded), len(computed)) {
		var r, c *renderers.Element
		if i < len(recorded) {
			r = &recorded[i]
		}
		if i < len(computed) {
			c = &computed[i]
		}
		if r != nil && c != nil && *r == *c {
			continue
		}
		what := fmt.Sprintf("the desired state differs at element %d of %d: the plan has %s, the intent gives %s",
			i+1, len(computed), elementText(r), elementText(c))
		if r != nil && c != nil && r.Path == c.Path {
			what = fmt.Sprintf("the desired state differs at %s: the plan has %s, the intent gives %s", quoteShort(c.Path), elementText(r), elementText(c))
		}
		return &TamperedDevice{Device: device, What: what}
	}
	return nil
}

// elementText shows an element of a desired state in an error.
func elementText(e *renderers.Element) string {
	if e == nil {
		return "nothing"
	}
	s := quoteShort(e.Path) + " = " + quoteShort(e.Value)
	if e.Kind != "" {
		s += " (element " + quoteShort(e.Kind) + ")"
	}
	return s
}

func sameChange(a, b renderers.Change) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Path == b.Path && a.Kind == b.Kind && a.Disruption == b.Disruption && eq(a.Before, b.Before) && eq(a.After, b.After)
}

// firstDifference returns the 1-based number of the first line where a and
// b differ, and that line in each ("" past the end).
func firstDifference(a, b []byte) (int, string, string) {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) || (i < len(la)) != (i < len(lb)) {
			return i + 1, string(x), string(y)
		}
	}
	return 0, "", ""
}

// checkScope is the second guard, independent of the first: the
// platform reads the remediation the plan pushes and refuses any line,
// operation or setting outside the scope rocefab owns on the device.
func checkScope(it *item, dp DevicePlan) *TamperedDevice {
	sc, ok := it.p.(renderers.ScopeChecker)
	if !ok || dp.Remediation == nil {
		return nil
	}
	if err := safeCall(func() error { return sc.CheckScope(it.d, dp.Remediation.Remediation()) }); err != nil {
		return &TamperedDevice{Device: dp.Device, What: err.Error()}
	}
	return nil
}
