package scheduler_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	"github.com/rocefab/rocefab/compiler/placement"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/renderers/scheduler"
)

// fabrics are the test fabrics: one per style, and an explicit inventory
// with a miswired server, an unwired one, and names Kubernetes cannot take
// as they are.
var fabrics = []struct {
	name, src string
	files     map[string]string
}{
	{"rail-optimized", `name: "r"
topology: {servers: 40, rails: 4, leaf: {platform: "nvue", model: "SN5600", downlinks: 16, uplinks: 16}}
hosts: nic: ports: ["eth1", "eth2", "eth3", "eth4"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]`, nil},
	{"clos", `name: "c"
topology: {style: "clos", servers: 6, rails: 8, leaf: {platform: "sonic", model: "DS5000", downlinks: 12, uplinks: 12}}`, nil},
	{"three-tier", `name: "t"
topology: {servers: 200, rails: 4, pod: servers: 96,
	leaf: {platform: "sonic", model: "DS5000", downlinks: 32, uplinks: 32},
	spine: {platform: "nvue", model: "SN5600"}, superspine: {platform: "eos", model: "7060X6-64PE"}}
hosts: nic: ports: ["eth1", "eth2", "eth3", "eth4"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]`, nil},
	{"explicit", `name: "lab_"
topology: {style: "explicit", inventory: "devices.json", rails: 2}
hosts: nic: ports: ["eth2", "eth3"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1"]`, map[string]string{"devices.json": linttest.TwoLeafInventory([]string{"Node-1", "node_2", "node-3", "node-4"},
		"Node-1:eth2 leaf-a:Ethernet0", "Node-1:eth3 leaf-b:Ethernet0",
		"node_2:eth2 leaf-a:Ethernet8", "node_2:eth3 leaf-b:Ethernet8",
		"node-3:eth2 leaf-a:Ethernet16", "node-3:eth3 leaf-a:Ethernet24")}},
}

// expand compiles src, with files beside it, without lint.
func expand(t *testing.T, src string, files map[string]string) *ir.Fabric {
	t.Helper()
	return linttest.ExpandFiles(t, src, files)
}

// each renders every test fabric and hands its view and files to fn.
func each(t *testing.T, fn func(t *testing.T, v *placement.View, files map[string][]byte)) {
	for _, c := range fabrics {
		t.Run(c.name, func(t *testing.T) {
			v := placement.Of(expand(t, c.src, c.files))
			arts, err := scheduler.Render(v)
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, a := range arts {
				files[a.Path] = a.Content
			}
			fn(t, v, files)
		})
	}
}

func TestGolden(t *testing.T) {
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		for p, b := range files {
			rendertest.Golden(t, filepath.Join("testdata", filepath.Base(t.Name()), p), b)
		}
		// Deterministic: rendering again gives the same bytes.
		again, err := scheduler.Render(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range again {
			if !bytes.Equal(a.Content, files[a.Path]) {
				t.Errorf("%s differs between two renderings", a.Path)
			}
		}
	})
}

// confLines reads a topology.conf: each line not a comment is
// space-separated Key=Value pairs, the names of topology.conf(5).
func confLines(t *testing.T, b []byte, keys ...string) []map[string]string {
	t.Helper()
	var out []map[string]string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		m := map[string]string{}
		for f := range strings.FieldsSeq(line) {
			k, val, ok := strings.Cut(f, "=")
			if !ok || !slices.Contains(keys, k) || val == "" {
				t.Fatalf("line %q: %q is no Key=Value of %v", line, f, keys)
			}
			m[k] = val
		}
		out = append(out, m)
	}
	return out
}

func expandOK(t *testing.T, hl string) []string {
	t.Helper()
	names, err := ir.ExpandHostlist(hl)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestSlurmTree checks topology.conf as the tree plugin reads it: names
// unique and at most 64 characters, every child switch defined, every
// switch below the top one, every wired server under exactly the leaf
// switch of its group.
func TestSlurmTree(t *testing.T) {
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		lines := confLines(t, files["slurm/topology.conf"], "SwitchName", "Nodes", "Switches")
		children := map[string][]string{}
		nodesOf := map[string][]string{}
		var order []string
		for _, l := range lines {
			n := l["SwitchName"]
			if n == "" || len(n) > 64 || children[n] != nil || nodesOf[n] != nil {
				t.Fatalf("switch name %q: empty, too long or twice", n)
			}
			if (l["Nodes"] == "") == (l["Switches"] == "") {
				t.Fatalf("switch %s: want Nodes or Switches", n)
			}
			order = append(order, n)
			if l["Nodes"] != "" {
				nodesOf[n] = expandOK(t, l["Nodes"])
			} else {
				children[n] = expandOK(t, l["Switches"])
			}
		}
		top := order[len(order)-1]
		reached := map[string]bool{}
		var walk func(string)
		walk = func(s string) {
			reached[s] = true
			for _, c := range children[s] {
				if children[c] == nil && nodesOf[c] == nil {
					t.Errorf("%s names switch %s, which no line defines", s, c)
				}
				walk(c)
			}
		}
		walk(top)
		for _, s := range order {
			if !reached[s] {
				t.Errorf("switch %s is not below the top switch %s", s, top)
			}
		}
		under := map[string]string{}
		for s, ns := range nodesOf {
			for _, n := range ns {
				if under[n] != "" {
					t.Errorf("%s under %s and %s", n, under[n], s)
				}
				under[n] = s
			}
		}
		for _, g := range v.Groups {
			for _, s := range g.Servers {
				if under[s] != g.Name {
					t.Errorf("%s under %q, want its group %s", s, under[s], g.Name)
				}
			}
			if g.Pod != nil && !slices.Contains(children[g.Pod.Name], g.Name) {
				t.Errorf("%s is not under its pod %s", g.Name, g.Pod.Name)
			}
		}
		if len(under) != v.Servers-len(v.Unwired) {
			t.Errorf("%d servers under a switch, want %d", len(under), v.Servers-len(v.Unwired))
		}
	})
}

// TestSlurmBlock checks topology-block.conf as the block plugin reads it
// (block_record.c): unique blocks, disjoint, covering every wired server;
// BlockSizes the base and doublings of it, at most 16 levels, the last
// holding every block; a pod's blocks listed together.
func TestSlurmBlock(t *testing.T) {
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		lines := confLines(t, files["slurm/topology-block.conf"], "BlockName", "Nodes", "BlockSizes")
		var blocks []string
		seen := map[string]bool{}
		var sizes []int
		base := 0
		for _, l := range lines {
			if s := l["BlockSizes"]; s != "" {
				for f := range strings.SplitSeq(s, ",") {
					var n int
					if _, err := fmt.Sscan(f, &n); err != nil {
						t.Fatal(err)
					}
					sizes = append(sizes, n)
				}
				continue
			}
			blocks = append(blocks, l["BlockName"])
			ns := expandOK(t, l["Nodes"])
			base = max(base, len(ns))
			for _, n := range ns {
				if seen[n] {
					t.Errorf("%s in two blocks", n)
				}
				seen[n] = true
			}
		}
		if len(seen) != v.Servers-len(v.Unwired) {
			t.Errorf("blocks hold %d servers, want %d", len(seen), v.Servers-len(v.Unwired))
		}
		if len(sizes) == 0 || sizes[0] != base || len(sizes) > 16 {
			t.Fatalf("BlockSizes %v: want the base %d first, at most 16 levels", sizes, base)
		}
		for i := 1; i < len(sizes); i++ {
			if sizes[i] != 2*sizes[i-1] {
				t.Errorf("BlockSizes %v: each size doubles the one before", sizes)
			}
		}
		if last := sizes[len(sizes)-1] / base; last < len(blocks) {
			t.Errorf("the largest level holds %d blocks of %d", last, len(blocks))
		}
		// A pod's groups are neighbours in the list.
		for _, p := range v.Pods {
			first := slices.Index(blocks, p.Groups[0].Name)
			for i, g := range p.Groups {
				if first < 0 || first+i >= len(blocks) || blocks[first+i] != g.Name {
					t.Errorf("%s's groups are not listed together: %v", p.Name, blocks)
				}
			}
		}
	})
}

// TestTopologyYAML decodes topology.yaml with the field names of
// topology.yaml(5), refusing any other, and finds the same tree and blocks
// as the .conf files.
func TestTopologyYAML(t *testing.T) {
	type sw struct {
		Switch   string `yaml:"switch"`
		Children string `yaml:"children"`
		Nodes    string `yaml:"nodes"`
	}
	type block struct {
		Block string `yaml:"block"`
		Nodes string `yaml:"nodes"`
	}
	type topo struct {
		Topology       string `yaml:"topology"`
		ClusterDefault bool   `yaml:"cluster_default"`
		Tree           *struct {
			Switches []sw `yaml:"switches"`
		} `yaml:"tree"`
		Block *struct {
			BlockSizes []int   `yaml:"block_sizes"`
			Blocks     []block `yaml:"blocks"`
		} `yaml:"block"`
	}
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		dec := yaml.NewDecoder(bytes.NewReader(files["slurm/topology.yaml"]))
		dec.KnownFields(true)
		var ts []topo
		if err := dec.Decode(&ts); err != nil {
			t.Fatal(err)
		}
		if len(ts) != 2 || ts[0].Topology != "tree" || !ts[0].ClusterDefault || ts[0].Tree == nil ||
			ts[1].Topology != "block" || ts[1].ClusterDefault || ts[1].Block == nil {
			t.Fatalf("want topologies tree (default) and block: %+v", ts)
		}
		var tree strings.Builder
		for _, s := range ts[0].Tree.Switches {
			if s.Nodes != "" {
				fmt.Fprintf(&tree, "SwitchName=%s Nodes=%s\n", s.Switch, s.Nodes)
			} else {
				fmt.Fprintf(&tree, "SwitchName=%s Switches=%s\n", s.Switch, s.Children)
			}
		}
		if want := confBody(files["slurm/topology.conf"]); tree.String() != want {
			t.Errorf("tree:\n%s\nwant\n%s", tree.String(), want)
		}
		var blocks strings.Builder
		for _, b := range ts[1].Block.Blocks {
			fmt.Fprintf(&blocks, "BlockName=%s Nodes=%s\n", b.Block, b.Nodes)
		}
		var sizes []string
		for _, s := range ts[1].Block.BlockSizes {
			sizes = append(sizes, fmt.Sprint(s))
		}
		fmt.Fprintf(&blocks, "BlockSizes=%s\n", strings.Join(sizes, ","))
		if want := confBody(files["slurm/topology-block.conf"]); blocks.String() != want {
			t.Errorf("blocks:\n%s\nwant\n%s", blocks.String(), want)
		}
	})
}

func confBody(b []byte) string {
	var out strings.Builder
	for l := range strings.Lines(string(b)) {
		if !strings.HasPrefix(l, "#") {
			out.WriteString(l)
		}
	}
	return out.String()
}

// crd is the embedded copy of the Kueue Topology CRD's schema.
type crd struct {
	Group    string   `json:"group"`
	Kind     string   `json:"kind"`
	Versions []string `json:"versions"`
	Schema   *prop    `json:"schema"`
}

type prop struct {
	Type       string           `json:"type"`
	Properties map[string]*prop `json:"properties"`
	Required   []string         `json:"required"`
	Items      *prop            `json:"items"`
	MinItems   *int             `json:"minItems"`
	MaxItems   *int             `json:"maxItems"`
	MinLength  *int             `json:"minLength"`
	MaxLength  *int             `json:"maxLength"`
	Pattern    string           `json:"pattern"`
}

// validate checks a decoded YAML value against a structural schema: types,
// known fields only, required fields, sizes and patterns.
func validate(t *testing.T, path string, x any, s *prop) {
	t.Helper()
	switch s.Type {
	case "object":
		m, ok := x.(map[string]any)
		if !ok {
			t.Errorf("%s: want an object, got %T", path, x)
			return
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				t.Errorf("%s: required field %s missing", path, r)
			}
		}
		if s.Properties == nil {
			return // free-form, like metadata
		}
		for k, val := range m {
			p, ok := s.Properties[k]
			if !ok {
				t.Errorf("%s: unknown field %s", path, k)
				continue
			}
			validate(t, path+"."+k, val, p)
		}
	case "array":
		a, ok := x.([]any)
		if !ok {
			t.Errorf("%s: want an array, got %T", path, x)
			return
		}
		if s.MinItems != nil && len(a) < *s.MinItems || s.MaxItems != nil && len(a) > *s.MaxItems {
			t.Errorf("%s: %d items", path, len(a))
		}
		for i, e := range a {
			validate(t, fmt.Sprintf("%s[%d]", path, i), e, s.Items)
		}
	case "string":
		str, ok := x.(string)
		if !ok {
			t.Errorf("%s: want a string, got %T", path, x)
			return
		}
		if s.MinLength != nil && len(str) < *s.MinLength || s.MaxLength != nil && len(str) > *s.MaxLength {
			t.Errorf("%s: length %d", path, len(str))
		}
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(str) {
			t.Errorf("%s: %q does not match %s", path, str, s.Pattern)
		}
	default:
		t.Fatalf("%s: schema type %q not handled", path, s.Type)
	}
}

// TestKueueTopology validates kueue-topology.yaml against Kueue's
// published Topology CRD (testdata/kueue-topology-crd.json, written from
// the source it names) and its rules, and checks the levels run from the
// fabric down to the host.
func TestKueueTopology(t *testing.T) {
	b, err := os.ReadFile("testdata/kueue-topology-crd.json")
	if err != nil {
		t.Fatal(err)
	}
	var c crd
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		var obj map[string]any
		if err := yaml.Unmarshal(files["k8s/kueue-topology.yaml"], &obj); err != nil {
			t.Fatal(err)
		}
		validate(t, "Topology", obj, c.Schema)
		group, version, _ := strings.Cut(fmt.Sprint(obj["apiVersion"]), "/")
		if group != c.Group || !slices.Contains(c.Versions, version) || obj["kind"] != c.Kind {
			t.Errorf("apiVersion %v kind %v: want %s/%v %s", obj["apiVersion"], obj["kind"], c.Group, c.Versions, c.Kind)
		}
		name, _ := obj["metadata"].(map[string]any)["name"].(string)
		if !regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`).MatchString(name) {
			t.Errorf("metadata.name %q is no DNS subdomain", name)
		}
		var levels []string
		for _, l := range obj["spec"].(map[string]any)["levels"].([]any) {
			levels = append(levels, l.(map[string]any)["nodeLabel"].(string))
		}
		// The CRD's rules: unique labels, kubernetes.io/hostname last.
		if len(slices.Compact(slices.Sorted(slices.Values(levels)))) != len(levels) {
			t.Errorf("levels not unique: %v", levels)
		}
		if i := slices.Index(levels, scheduler.LabelHostname); i != len(levels)-1 {
			t.Errorf("kubernetes.io/hostname must be the last level: %v", levels)
		}
		want := []string{scheduler.LabelFabric, scheduler.LabelLeafGroup, scheduler.LabelHostname}
		if v.Tiers >= 3 {
			want = slices.Insert(want, 1, scheduler.LabelPod)
		}
		if !slices.Equal(levels, want) {
			t.Errorf("levels %v, want %v", levels, want)
		}
	})
}

var (
	labelKey   = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$`)
	labelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`)
)

// wantLabels is what each node should carry: for every wired server with a
// Kubernetes name, one label per level.
func wantLabels(t *testing.T, v *placement.View) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, g := range v.Groups {
		for _, s := range g.Servers {
			if strings.Contains(s, "_") {
				continue
			}
			m := map[string]string{scheduler.LabelFabric: strings.TrimRight(v.Fabric, "_"), scheduler.LabelLeafGroup: g.Name}
			if g.Pod != nil {
				m[scheduler.LabelPod] = g.Pod.Name
			}
			out[strings.ToLower(s)] = m
		}
	}
	for _, s := range v.Unwired {
		out[strings.ToLower(s)] = map[string]string{scheduler.LabelFabric: strings.TrimRight(v.Fabric, "_")}
	}
	return out
}

// TestNodeLabels decodes node-labels.yaml: one partial Node per node, with
// valid names, keys and values, and the labels of its place.
func TestNodeLabels(t *testing.T) {
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		got := map[string]map[string]string{}
		dec := yaml.NewDecoder(bytes.NewReader(files["k8s/node-labels.yaml"]))
		dec.KnownFields(true)
		for {
			var n struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Metadata   struct {
					Name   string            `yaml:"name"`
					Labels map[string]string `yaml:"labels"`
				} `yaml:"metadata"`
			}
			if err := dec.Decode(&n); err != nil {
				if err.Error() == "EOF" {
					break
				}
				t.Fatal(err)
			}
			if n.APIVersion != "v1" || n.Kind != "Node" || got[n.Metadata.Name] != nil {
				t.Errorf("document %+v: want a v1 Node, once", n)
			}
			for k, val := range n.Metadata.Labels {
				if !labelKey.MatchString(k) || !labelValue.MatchString(val) {
					t.Errorf("%s: label %s=%s is not a valid label", n.Metadata.Name, k, val)
				}
			}
			got[n.Metadata.Name] = n.Metadata.Labels
		}
		if want := wantLabels(t, v); !equalLabels(got, want) {
			t.Errorf("labels:\n got %v\nwant %v", got, want)
		}
	})
}

func equalLabels(a, b map[string]map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, m := range a {
		n, ok := b[k]
		if !ok || len(m) != len(n) {
			return false
		}
		for x, y := range m {
			if n[x] != y {
				return false
			}
		}
	}
	return true
}

// TestLabelScript runs label-nodes.sh with a kubectl that records its
// arguments, and finds every node labelled as node-labels.yaml says, with
// the caller's arguments passed on.
func TestLabelScript(t *testing.T) {
	bash := rendertest.LookPath(t, "bash", "to run the label script")
	each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
		dir := t.TempDir()
		script := filepath.Join(dir, "label-nodes.sh")
		fake := filepath.Join(dir, "kubectl")
		log := filepath.Join(dir, "log")
		if err := os.WriteFile(script, files["k8s/label-nodes.sh"], 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >>\"$LOG\"\necho -- >>\"$LOG\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bash, script, "--context", "lab")
		cmd.Env = append(os.Environ(), "KUBECTL="+fake, "LOG="+log)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]map[string]string{}
		for call := range strings.SplitSeq(strings.TrimSuffix(string(b), "--\n"), "--\n") {
			args := strings.Fields(call)
			if len(args) < 4 || args[0] != "label" || args[1] != "--overwrite" || args[2] != "--context" || args[3] != "lab" {
				t.Fatalf("kubectl %v: want label --overwrite --context lab ...", args)
			}
			labels := map[string]string{}
			var nodes []string
			for _, a := range args[4:] {
				if n, ok := strings.CutPrefix(a, "node/"); ok {
					nodes = append(nodes, n)
				} else if k, val, ok := strings.Cut(a, "="); ok {
					labels[k] = val
				} else {
					t.Fatalf("argument %q", a)
				}
			}
			for _, n := range nodes {
				got[n] = labels
			}
		}
		if want := wantLabels(t, v); !equalLabels(got, want) {
			t.Errorf("labels:\n got %v\nwant %v", got, want)
		}
	})
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		each(t, func(t *testing.T, v *placement.View, files map[string][]byte) {
			cmd := exec.Command(sc, "-s", "bash", "-")
			cmd.Stdin = bytes.NewReader(files["k8s/label-nodes.sh"])
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("shellcheck: %v\n%s", err, out)
			}
		})
	}
}

// TestNames: a fabric name that is no label value (64 characters, a
// trailing '-') is cut and trimmed on the nodes, and the Kueue Topology
// falls back to a valid object name; the Slurm top switch gives way to a
// group of the same name.
func TestNames(t *testing.T) {
	long := strings.Repeat("a", 62) + "b-"
	v := &placement.View{Fabric: long, Tiers: 1, Servers: 1,
		Groups: []*placement.Group{{Name: "leafgroup-00", Leaves: []string{"leaf-00"}, Servers: []string{"gpu-0000"}}}}
	arts, err := scheduler.Render(v)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, a := range arts {
		files[a.Path] = string(a.Content)
	}
	if !strings.Contains(files["k8s/node-labels.yaml"], `rocefab.io/fabric: "`+long[:63]+`"`) {
		t.Errorf("fabric label:\n%s", files["k8s/node-labels.yaml"])
	}
	if !strings.Contains(files["k8s/kueue-topology.yaml"], `name: "rocefab"`) {
		t.Errorf("Topology name:\n%s", files["k8s/kueue-topology.yaml"])
	}
	v.Fabric = "leafgroup-00"
	arts, err = scheduler.Render(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(find(arts, "slurm/topology.conf")); !strings.Contains(got, "SwitchName=leafgroup-00-fabric Switches=leafgroup-00\n") {
		t.Errorf("top switch:\n%s", got)
	}
}

func find(arts []renderers.Artifact, p string) []byte {
	for _, a := range arts {
		if a.Path == p {
			return a.Content
		}
	}
	return nil
}

// TestNoWiredServer: a fabric whose servers reach no switch still renders,
// every file saying so, and topology.yaml still decodes.
func TestNoWiredServer(t *testing.T) {
	v := &placement.View{Fabric: "empty", Tiers: 1, Servers: 2, Unwired: []string{"gpu-0000", "gpu-0001"}}
	arts, err := scheduler.Render(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arts {
		want := "gpu-[0000-0001]" // Slurm's files give a hostlist, the node labels each name
		if strings.HasPrefix(a.Path, "k8s/") {
			want = "gpu-0001"
		}
		if a.Path != "k8s/kueue-topology.yaml" && !bytes.Contains(a.Content, []byte(want)) {
			t.Errorf("%s does not name the unwired servers:\n%s", a.Path, a.Content)
		}
	}
	var ts []map[string]any
	if err := yaml.Unmarshal(find(arts, "slurm/topology.yaml"), &ts); err != nil || len(ts) != 1 {
		t.Errorf("topology.yaml: %v %v", ts, err)
	}
	if bytes.Contains(find(arts, "slurm/topology-block.conf"), []byte("\nBlockSizes=")) {
		t.Error("BlockSizes without blocks")
	}
}
