package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processCPU is this process's CPU time: the gNMI servers' and rocefab's,
// since both run in it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestInventoryGNMIScale times plan and apply through the command line
// against N switches, each its own gNMI server over TLS on loopback
// (N/5 spines, 4N/5 leaves of 64 ports, the servers behind them reported
// unsupported): plan with --parallelism 64 of every switch, whose ECN
// minimum (one line of the intent) changed; apply of that plan; plan
// again, which finds nothing. It is slow, so it runs only when
// ROCEFAB_GNMI_SCALE lists the sizes ("100,1000"); each is logged with
// its wall and CPU times.
func TestInventoryGNMIScale(t *testing.T) {
	sizes := os.Getenv("ROCEFAB_GNMI_SCALE")
	if sizes == "" {
		t.Skip("ROCEFAB_GNMI_SCALE=100,1000 runs it")
	}
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 || n%10 != 0 {
			t.Fatalf("ROCEFAB_GNMI_SCALE: %q: a multiple of 10, at least 10", f)
		}
		t.Run(strconv.Itoa(n), func(t *testing.T) { scaleRun(t, n) })
	}
}

func scaleRun(t *testing.T, n int) {
	dir := t.TempDir()
	// 16 downlinks per leaf: 4N/5 leaves take 2 x (4N/5) servers on 8 rails.
	src := fmt.Sprintf(`name: "scale"
topology: {
	servers: %d
	rails:   8
	leaf: {platform: "eos", model: "7060X6-64PE", downlinks: 16, uplinks: 16}
	spine: {platform: "nvue", model: "SN5600", count: %d}
}
`, 2*(4*n/5), n/5)
	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := gnmiFabric(t, dir, true)
	if len(servers) != n {
		t.Fatalf("%d switches, want %d", len(servers), n)
	}
	t.Setenv(testPasswordEnv, testSecret)

	timed := func(what string, want int, args ...string) string {
		t.Helper()
		wall, cpu := time.Now(), processCPU()
		code, out, errOut := rocefab(t, dir, "", args...)
		t.Logf("%d switches: %s: %.2f s wall, %.2f s CPU (rocefab and the servers)", n, what, time.Since(wall).Seconds(), (processCPU() - cpu).Seconds())
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%.2000s\n%.2000s", what, code, want, out, errOut)
		}
		return out
	}
	out := timed("plan", exitPlanChanges, "plan", ".", "--inventory", "inventory.json", "--parallelism", "64", "-o", "plan.json", "--detailed-exitcode")
	if want := fmt.Sprintf("Plan: %d devices to change: %d hitless", n, n); !strings.Contains(out, want) {
		t.Errorf("plan does not say %q:\n%s", want, out[strings.LastIndex(out, "Plan:"):])
	}
	out = timed("apply", exitOK, "apply", "plan.json", "--inventory", "inventory.json", "--parallelism", "64", "--auto-approve")
	if want := fmt.Sprintf("Apply: %d applied, 0 rolled back", n); !strings.Contains(out, want) {
		t.Errorf("apply does not say %q", want)
	}
	timed("plan after apply", exitOK, "plan", ".", "--inventory", "inventory.json", "--parallelism", "64", "--detailed-exitcode")
}
