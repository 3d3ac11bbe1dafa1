package host

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

func itoa(i int) string { return strconv.Itoa(i) }

func train(t *testing.T) *ir.Tenant {
	t.Helper()
	f := irtest.Fabric()
	for _, tn := range f.Tenants {
		if tn.Name == "train" {
			c := *tn
			c.Env = slices.Clone(tn.Env)
			c.Servers = slices.Clone(tn.Servers)
			return &c
		}
	}
	t.Fatal("test fabric has no tenant train")
	return nil
}

func TestTenant(t *testing.T) {
	tn := train(t)
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	if a.Path != "tenants/train.env" || a.Format != renderers.Env {
		t.Errorf("artifact %s (%s), want tenants/train.env (env)", a.Path, a.Format)
	}
	s := string(a.Content)
	var keys []string
	for line := range strings.Lines(s) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("line %q is not KEY=value", line)
		}
		keys = append(keys, k)
		if !envValue.MatchString(v) {
			t.Errorf("%s has an unsafe value %q", k, v)
		}
	}
	if !slices.IsSorted(keys) {
		t.Errorf("keys not sorted: %v", keys)
	}
	roce := irtest.Fabric().Class("roce")
	rendertest.Contains(t, "the env file", s,
		"NCCL_IB_TC="+itoa(roce.DSCP[0]<<2)+"\n",
		"NCCL_IB_GID_INDEX=3\n",
		"NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3\n",
		"NCCL_IB_TIMEOUT=22\n",
		"# NCCL environment of tenant train",
		"# Class roce: priority 3, DSCP 26, lossless; NCCL_IB_TC 104 = DSCP 26 << 2.",
		"# Servers: gpu-[0000-0001] (2).",
	)

	a2, _ := RenderTenant(tn)
	if string(a2.Content) != s {
		t.Error("two renders of one tenant differ")
	}
	slices.Reverse(tn.Env)
	a3, _ := RenderTenant(tn)
	if string(a3.Content) != s {
		t.Error("the env file depends on the order of the environment")
	}
}

func TestTenantThousandsOfServers(t *testing.T) {
	tn := train(t)
	tn.Servers = nil
	for i := range 4096 {
		tn.Servers = append(tn.Servers, "gpu-"+pad4(i))
	}
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(a.Content), "\nNCCL_")
	if len(header) > 600 || !strings.Contains(header, "gpu-[0000-4095] (4096)") {
		t.Errorf("header is %d bytes:\n%s", len(header), header)
	}
}

func TestTenantAddsTrafficClass(t *testing.T) {
	tn := train(t)
	tn.Env = slices.DeleteFunc(tn.Env, func(e ir.EnvVar) bool { return e.Name == "NCCL_IB_TC" })
	tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_IB_QPS_PER_CONNECTION", Value: "4"})
	tn.TrafficClass = 106
	tn.Servers = nil
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	s := string(a.Content)
	for _, want := range []string{"NCCL_IB_TC=106\n", "NCCL_IB_QPS_PER_CONNECTION=4\n", "| ECN 2", "# Servers: any server."} {
		if !strings.Contains(s, want) {
			t.Errorf("the env file lacks %q:\n%s", want, s)
		}
	}
}

func TestTenantRefusals(t *testing.T) {
	cases := map[string]func(tn *ir.Tenant){
		"nil class":      func(tn *ir.Tenant) { tn.Class = nil; tn.ClassName = "ghost" },
		"name newline":   func(tn *ir.Tenant) { tn.Name = "train\nx" },
		"name semicolon": func(tn *ir.Tenant) { tn.Name = "train;x" },
		"name subshell":  func(tn *ir.Tenant) { tn.Name = "train$(x)" },
		"name backtick":  func(tn *ir.Tenant) { tn.Name = "train`x`" },
		"name quote":     func(tn *ir.Tenant) { tn.Name = `train"x` },
		"server":         func(tn *ir.Tenant) { tn.Servers = append(tn.Servers, "gpu-9\nrm") },
		"value subshell": func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "$(reboot)"}) },
		"value backtick": func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "`reboot`"}) },
		"value quote":    func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "a'b"}) },
		"value space":    func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "a b"}) },
		"value newline":  func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "a\nB=c"}) },
		"value semi":     func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_X", Value: "a;b"}) },
		"key":            func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL X", Value: "1"}) },
		"duplicate":      func(tn *ir.Tenant) { tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_IB_HCA", Value: "mlx5_9"}) },
		"tc mismatch":    func(tn *ir.Tenant) { tn.TrafficClass = 96 },
		"tc range":       func(tn *ir.Tenant) { tn.TrafficClass = 300 },
	}
	for name, mutate := range cases {
		tn := train(t)
		mutate(tn)
		if _, err := RenderTenant(tn); err == nil {
			t.Errorf("%s: rendered", name)
		}
	}
	if _, err := RenderTenant(nil); err == nil {
		t.Error("nil tenant rendered")
	}
}

// TestTenantAdaptiveRouting: a tenant whose packets a switch reorders says
// why its file turns NCCL's adaptive-routing mode on; one whose intent
// turns it off gets no such line.
func TestTenantAdaptiveRouting(t *testing.T) {
	tn := train(t)
	tn.ReorderedBy = "spine-00"
	tn.Env = append(tn.Env, ir.EnvVar{Name: ir.NCCLAdaptiveRouting, Value: "1"})
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	s := string(a.Content)
	rendertest.Contains(t, "the env file", s,
		"\nNCCL_IB_ADAPTIVE_ROUTING=1\n",
		"# NCCL_IB_ADAPTIVE_ROUTING=1: spine-00 balances per packet",
	)
	tn.Env[len(tn.Env)-1].Value = "0"
	a, err = RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(a.Content), "balances per packet") {
		t.Errorf("explains a value the intent turned off:\n%s", a.Content)
	}
}

// An env file says which collective library it is for: NCCL on NVIDIA
// GPUs, RCCL (which reads the same variables) on AMD GPUs.
func TestTenantLibrary(t *testing.T) {
	for _, c := range []struct{ lib, first string }{
		{"", "# NCCL environment of tenant train, generated by rocefab"},
		{ir.LibraryNCCL, "# NCCL environment of tenant train, generated by rocefab"},
		{ir.LibraryRCCL, "# RCCL environment of tenant train (AMD GPUs: RCCL reads these NCCL_* variables), generated by rocefab"},
		{"mpi", ""},
	} {
		tn := *train(t)
		tn.Library = c.lib
		a, err := RenderTenant(&tn)
		if c.first == "" {
			if err == nil || !strings.Contains(err.Error(), `collective library "mpi": want nccl or rccl`) {
				t.Errorf("library %q: err %v", c.lib, err)
			}
			continue
		}
		if err != nil || !strings.HasPrefix(string(a.Content), c.first) {
			t.Errorf("library %q: %v\n%s", c.lib, err, a.Content)
		}
	}
}
