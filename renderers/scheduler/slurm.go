package scheduler

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// maxBlockLevel is the largest BlockSizes level Slurm accepts: a size of
// base << 15 (block_record.c, _read_topo_file: "block_level > 15").
const maxBlockLevel = 15

// maxSwitchName is the longest switch name topology.conf(5) allows.
const maxSwitchName = 64

// slurmTree is the tree the Slurm files describe: leaf groups under their
// pods (three tiers) under one switch for the fabric.
type slurmTree struct {
	top string
	// groups are the leaf switches with their nodes, in block order: pod
	// by pod, then any group outside a pod.
	groups []slurmSwitch
	// pods are the pods with their groups.
	pods []slurmSwitch
	// topChildren is the top switch's children as a hostlist.
	topChildren string
	unwired     string
	base        int // servers of the largest group: the block plugin's base size
	sizes       []int
}

type slurmSwitch struct {
	name, children string
}

func newSlurmTree(v *ir.Placement) (*slurmTree, error) {
	t := &slurmTree{top: topName(v)}
	if len(t.top) > maxSwitchName {
		return nil, fmt.Errorf("fabric name %q: Slurm switch names hold at most %d characters", v.Fabric, maxSwitchName)
	}
	var order []*ir.LeafGroup
	var top []string
	for _, p := range v.Pods {
		var names []string
		for _, g := range p.Groups {
			order = append(order, g)
			names = append(names, g.Name)
		}
		hl, err := ir.CompressHostlist(names)
		if err != nil {
			return nil, err
		}
		t.pods = append(t.pods, slurmSwitch{p.Name, hl})
		top = append(top, p.Name)
	}
	for _, g := range v.Groups {
		if g.Pod == nil {
			order = append(order, g)
			top = append(top, g.Name)
		}
	}
	for _, g := range order {
		hl, err := ir.CompressHostlist(g.Servers)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g.Name, err)
		}
		t.groups = append(t.groups, slurmSwitch{g.Name, hl})
		t.base = max(t.base, len(g.Servers))
	}
	var err error
	if t.topChildren, err = ir.CompressHostlist(top); err != nil {
		return nil, err
	}
	if t.unwired, err = ir.CompressHostlist(v.Unwired); err != nil {
		return nil, err
	}
	// BlockSizes: the base block, then doubling until one block holds the
	// whole fabric, so that a job of any size has a level; each size is
	// the base times a power of two, as the block plugin requires.
	for k := 0; k <= maxBlockLevel && len(t.groups) > 0; k++ {
		t.sizes = append(t.sizes, t.base<<k)
		if 1<<k >= len(t.groups) {
			break
		}
	}
	return t, nil
}

// topName names the fabric's switch after the fabric, unless a group or
// pod already has that name.
func topName(v *ir.Placement) string {
	name := v.Fabric
	taken := map[string]bool{}
	for _, g := range v.Groups {
		taken[g.Name] = true
	}
	for _, p := range v.Pods {
		taken[p.Name] = true
	}
	for taken[name] {
		name += "-fabric"
	}
	return name
}

func header(b *strings.Builder, v *ir.Placement, lines ...string) {
	fmt.Fprintf(b, "# Fabric %q, written by rocefab: do not edit, rebuild.\n", v.Fabric)
	for _, l := range lines {
		b.WriteString("# " + l + "\n")
	}
}

func (t *slurmTree) unwiredNote(b *strings.Builder) {
	if t.unwired != "" {
		b.WriteString("# Wired to no switch, so under none: " + t.unwired + "\n")
	}
}

// treeConf writes topology.conf for topology/tree. Syntax: topology.conf(5),
// section topology/tree (SchedMD/slurm@284c3b95:doc/man/man5/topology.conf.5):
// "SwitchName=<name> Nodes=<hostlist>" for a leaf switch,
// "SwitchName=<name> Switches=<hostlist>" above it.
func treeConf(v *ir.Placement, t *slurmTree) []byte {
	var b strings.Builder
	header(&b, v,
		"Slurm topology.conf for TopologyPlugin=topology/tree (topology.conf(5)); install it beside slurm.conf.",
		"A leaf switch is a leaf group: the servers whose NICs reach the same leaves.",
	)
	if len(v.Pods) > 0 {
		b.WriteString("# Above them, one switch per pod (the leaves and spines below the superspines), then the fabric.\n")
	} else {
		b.WriteString("# Above them, one switch for the fabric.\n")
	}
	t.unwiredNote(&b)
	for _, g := range t.groups {
		b.WriteString("SwitchName=" + g.name + " Nodes=" + g.children + "\n")
	}
	for _, p := range t.pods {
		b.WriteString("SwitchName=" + p.name + " Switches=" + p.children + "\n")
	}
	if t.topChildren != "" {
		b.WriteString("SwitchName=" + t.top + " Switches=" + t.topChildren + "\n")
	}
	return []byte(b.String())
}

// blockConf writes topology.conf for topology/block. Syntax:
// topology.conf(5), section topology/block: "BlockName=<name>
// Nodes=<hostlist>" per base block and "BlockSizes=<base>,<2 x base>,...".
// The plugin aggregates neighbouring blocks in the order they are listed
// (block_record.c, block_record_validate), so a pod's groups are listed
// together; since Slurm 25.05 a block may hold fewer nodes than the base
// size (CHANGELOG/slurm-25.05.md), as a ragged last group does.
func blockConf(v *ir.Placement, t *slurmTree) []byte {
	var b strings.Builder
	header(&b, v,
		"Slurm topology.conf for TopologyPlugin=topology/block (topology.conf(5)); install it as topology.conf beside slurm.conf.",
		fmt.Sprintf("A base block is a leaf group (up to %d servers whose NICs reach the same leaves); BlockSizes doubles up to the fabric.", t.base),
	)
	if note := podAlignment(v, t); note != "" {
		b.WriteString("# " + note + "\n")
	}
	t.unwiredNote(&b)
	for _, g := range t.groups {
		b.WriteString("BlockName=" + g.name + " Nodes=" + g.children + "\n")
	}
	if len(t.sizes) > 0 {
		b.WriteString("BlockSizes=" + renderers.JoinInts(t.sizes, ",") + "\n")
	}
	return []byte(b.String())
}

// podAlignment says which aggregated blocks stay inside one pod: those of
// up to the largest power of two that divides a full pod's group count.
func podAlignment(v *ir.Placement, t *slurmTree) string {
	if len(v.Pods) == 0 {
		return ""
	}
	if len(v.Pods) == 1 {
		return "The fabric is one pod: every block lies within it."
	}
	// A full pod: the last one of a generated fabric may hold fewer.
	per := 0
	for _, p := range v.Pods {
		per = max(per, len(p.Groups))
	}
	within := 1 << bits.TrailingZeros(uint(per))
	unit := "groups"
	if within == 1 {
		unit = "group"
	}
	return fmt.Sprintf("A pod holds %d groups: blocks of up to %d %s (%d servers) lie within one pod, larger ones span pods.",
		per, within, unit, within*t.base)
}

// topologyYAML writes topology.yaml (Slurm 25.05 and later, which reads it
// instead of topology.conf when both exist): the tree as the cluster's
// default topology "tree", and the blocks as topology "block" for
// partitions that name it (slurm.conf(5), partition option Topology=).
// Field names: topology.yaml(5) (SchedMD/slurm@284c3b95:doc/man/man5/topology.yaml.5):
// topology, cluster_default, tree.switches[].{switch,children,nodes},
// block.block_sizes, block.blocks[].{block,nodes}.
func topologyYAML(v *ir.Placement, t *slurmTree) []byte {
	var b strings.Builder
	header(&b, v,
		"Slurm topology.yaml (topology.yaml(5), Slurm 25.05 and later); install it beside slurm.conf, where it takes",
		"the place of topology.conf. Topology \"tree\" is the cluster default; a partition with Topology=block uses the blocks.",
	)
	t.unwiredNote(&b)
	b.WriteString("---\n")
	b.WriteString("- topology: \"tree\"\n  cluster_default: true\n  tree:\n    switches:")
	if len(t.groups) == 0 {
		b.WriteString(" []")
	}
	b.WriteString("\n")
	for _, g := range t.groups {
		fmt.Fprintf(&b, "      - switch: %q\n        nodes: %q\n", g.name, g.children)
	}
	for _, p := range t.pods {
		fmt.Fprintf(&b, "      - switch: %q\n        children: %q\n", p.name, p.children)
	}
	if t.topChildren != "" {
		fmt.Fprintf(&b, "      - switch: %q\n        children: %q\n", t.top, t.topChildren)
	}
	if len(t.groups) > 0 {
		b.WriteString("- topology: \"block\"\n  cluster_default: false\n  block:\n    block_sizes:\n")
		for _, s := range t.sizes {
			fmt.Fprintf(&b, "      - %d\n", s)
		}
		b.WriteString("    blocks:\n")
		for _, g := range t.groups {
			fmt.Fprintf(&b, "      - block: %q\n        nodes: %q\n", g.name, g.children)
		}
	}
	return []byte(b.String())
}

func slurmArtifacts(v *ir.Placement) ([]renderers.Artifact, error) {
	t, err := newSlurmTree(v)
	if err != nil {
		return nil, err
	}
	return []renderers.Artifact{
		{Path: "slurm/topology.conf", Format: renderers.Text, Content: treeConf(v, t)},
		{Path: "slurm/topology-block.conf", Format: renderers.Text, Content: blockConf(v, t)},
		{Path: "slurm/topology.yaml", Format: renderers.YAML, Content: topologyYAML(v, t)},
	}, nil
}
