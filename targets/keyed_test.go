package targets_test

import (
	"sync"
	"testing"

	"github.com/rocefab/rocefab/targets"
)

// TestKeyed: every caller that asks for a key at once gets the same value,
// other keys get their own, and Take hands over what was made and starts
// afresh.
func TestKeyed(t *testing.T) {
	var k targets.Keyed[string, sync.Mutex]
	got := make([]*sync.Mutex, 16)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = k.Get("leaf-1") })
	}
	wg.Wait()
	for i, m := range got {
		if m != got[0] {
			t.Fatalf("call %d got another mutex for leaf-1", i)
		}
	}
	if k.Get("leaf-2") == got[0] {
		t.Fatal("leaf-2 shares leaf-1's mutex")
	}
	taken := k.Take()
	if len(taken) != 2 || taken["leaf-1"] != got[0] {
		t.Fatalf("Take returned %v", taken)
	}
	if k.Get("leaf-1") == got[0] || len(k.Take()) != 1 {
		t.Fatal("Take did not forget what it returned")
	}
}
