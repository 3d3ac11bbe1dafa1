package scheduler

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// The node labels, one per level, widest first. The prefix is rocefab's
// own, so the labels never collide with another tool's.
const (
	LabelPrefix    = "rocefab.io/"
	LabelFabric    = LabelPrefix + "fabric"
	LabelPod       = LabelPrefix + "pod"
	LabelLeafGroup = LabelPrefix + "leaf-group"
	// LabelHostname is the label the kubelet sets on every node; Kueue
	// wants it as the narrowest level of a Topology.
	LabelHostname = "kubernetes.io/hostname"
)

// labelBatch is how many nodes one kubectl label command takes: a leaf
// group at a time, in batches that keep a command line short.
const labelBatch = 64

// NodeName is the Kubernetes node a server registers as: the kubelet
// lower-cases the host name (kubernetes/kubernetes@95f08499:staging/src/
// k8s.io/component-helpers/node/util/hostname_test.go, "overridden hostname
// uppercase"). A node name is a DNS subdomain (RFC 1123); a server name
// that is not one (an underscore, say) has no node of that name, and ok is
// false. Build labels the nodes by it, and a quarantine cordons them by it.
func NodeName(server string) (name string, ok bool) {
	name = strings.ToLower(server)
	return name, len(name) <= 253 && isDNSSubdomain(name)
}

// isDNSSubdomain reports whether s is an RFC 1123 subdomain: dot-separated
// labels of lower-case letters, digits and '-', alphanumeric at both
// ends. It is the regular expression Kubernetes validates with
// (^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$),
// spelt out: a build checks 12,500 names.
func isDNSSubdomain(s string) bool {
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// labelValue makes a fabric name a label value (at most 63 characters,
// alphanumeric at both ends): rocefab names allow 64 characters and a
// trailing '-', '_' or '.', so such a name is cut to 63 and trimmed.
func labelValue(s string) string {
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.TrimRight(s, "-_.")
}

// labelsOf returns the labels of a group's servers, widest level first.
func labelsOf(v *ir.Placement, g *ir.LeafGroup) [][2]string {
	out := [][2]string{{LabelFabric, labelValue(v.Fabric)}}
	if g == nil {
		return out
	}
	if g.Pod != nil {
		out = append(out, [2]string{LabelPod, g.Pod.Name})
	}
	return append(out, [2]string{LabelLeafGroup, g.Name})
}

// levels are the Kueue Topology's levels, widest first.
func levels(v *ir.Placement) []string {
	out := []string{LabelFabric}
	if len(v.Pods) > 0 {
		out = append(out, LabelPod)
	}
	return append(out, LabelLeafGroup, LabelHostname)
}

// labelScript writes a bash script of kubectl label commands, one per
// batch of a group's nodes, each naming its nodes as node/<name>
// (kubectl label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ...;
// "one or more resources ... as <resource> <name> or <resource>/<name>",
// https://kubernetes.io/docs/reference/kubectl/generated/kubectl_label/).
// Every word is single-quoted; names hold no quote (rocefab names are
// letters, digits, '.', '_' and '-').
func labelScript(v *ir.Placement) ([]byte, error) {
	var b strings.Builder
	b.Grow(v.Servers*20 + len(v.Groups)*160)
	b.WriteString("#!/usr/bin/env bash\n")
	header(&b, v,
		"Labels each server's Kubernetes node with its place in the fabric:",
		"  "+LabelFabric+"      the fabric",
	)
	if len(v.Pods) > 0 {
		b.WriteString("#   " + LabelPod + "         the pod: leaves and spines joined below the superspines\n")
	}
	b.WriteString("#   " + LabelLeafGroup + "  the servers whose NICs reach the same leaves\n")
	b.WriteString("# A node is named after its server in lower case, as the kubelet registers a host name.\n")
	b.WriteString("# Arguments go to kubectl label (e.g. --context prod, --dry-run=server); KUBECTL names another kubectl.\n")
	b.WriteString("set -euo pipefail\nkubectl=${KUBECTL:-kubectl}\n")
	batch := func(title string, nodes []string, labels [][2]string) {
		for i := 0; i < len(nodes); i += labelBatch {
			b.WriteString("\n# " + title + "\n\"$kubectl\" label --overwrite \"$@\"")
			for j, n := range nodes[i:min(i+labelBatch, len(nodes))] {
				if j%8 == 0 {
					b.WriteString(" \\\n\t")
				} else {
					b.WriteByte(' ')
				}
				b.WriteString("'node/" + n + "'")
			}
			b.WriteString(" \\\n\t")
			for j, l := range labels {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString("'" + l[0] + "=" + l[1] + "'")
			}
			b.WriteByte('\n')
		}
	}
	var skipped []string
	nodesOf := func(servers []string) []string {
		var out []string
		for _, s := range servers {
			if n, ok := NodeName(s); ok {
				out = append(out, n)
			} else {
				skipped = append(skipped, s)
			}
		}
		return out
	}
	for _, g := range v.Groups {
		hl, err := ir.CompressHostlist(g.Servers)
		if err != nil {
			return nil, err
		}
		batch(g.Name+": "+hl, nodesOf(g.Servers), labelsOf(v, g))
	}
	if len(v.Unwired) > 0 {
		batch("wired to no switch: the fabric only", nodesOf(v.Unwired), labelsOf(v, nil))
	}
	if err := skippedNote(&b, "\n", skipped); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// skippedNote says which servers got no labels for want of a node name.
func skippedNote(b *strings.Builder, before string, skipped []string) error {
	if len(skipped) == 0 {
		return nil
	}
	hl, err := ir.CompressHostlist(skipped)
	if err != nil {
		return err
	}
	b.WriteString(before + "# Not labelled, their names being no Kubernetes node name (RFC 1123 subdomain): " + hl + "\n")
	return nil
}

// nodePatches writes one YAML document per node: a partial Node with the
// node's labels. Each is a strategic-merge patch of that node
// (kubectl patch node NAME --type strategic --patch-file FILE,
// https://kubernetes.io/docs/reference/kubectl/generated/kubectl_patch/)
// and, the whole file, an object set for server-side apply
// (kubectl apply --server-side, which merges the labels a field manager
// owns into each node: https://kubernetes.io/docs/reference/using-api/server-side-apply/).
// Every string is double-quoted, so that a name such as "0001" stays a
// string.
func nodePatches(v *ir.Placement) ([]byte, error) {
	var b strings.Builder
	header(&b, v,
		"One strategic-merge patch per Kubernetes node (a partial Node): its labels, one per level of the fabric.",
		"All at once: kubectl apply --server-side --field-manager=rocefab -f node-labels.yaml",
		"(apply creates a Node that does not exist yet: run it once the servers have joined).",
	)
	var skipped []string
	// 12,500 nodes make two megabytes: plain appends, no formatting, and
	// the labels of a group written once.
	b.Grow(v.Servers * 160)
	write := func(servers []string, labels [][2]string) {
		var lb strings.Builder
		for _, l := range labels {
			lb.WriteString("    " + l[0] + ": \"" + l[1] + "\"\n")
		}
		block := lb.String()
		for _, s := range servers {
			n, ok := NodeName(s)
			if !ok {
				skipped = append(skipped, s)
				continue
			}
			b.WriteString("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: \"")
			b.WriteString(n)
			b.WriteString("\"\n  labels:\n")
			b.WriteString(block)
		}
	}
	for _, g := range v.Groups {
		write(g.Servers, labelsOf(v, g))
	}
	write(v.Unwired, labelsOf(v, nil))
	if err := skippedNote(&b, "", skipped); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// kueueTopology writes a Kueue Topology (kueue.x-k8s.io/v1beta2, the
// storage version; Kueue 0.15 and later serve it): the levels from the
// widest to the narrowest, each a node label, with kubernetes.io/hostname
// last as Kueue allows and recommends (the CRD's x-kubernetes-validations
// and https://kueue.sigs.k8s.io/docs/concepts/topology/).
func kueueTopology(v *ir.Placement) []byte {
	var b strings.Builder
	name := strings.ToLower(v.Fabric)
	note := ""
	if _, ok := NodeName(name); !ok {
		name, note = "rocefab", fmt.Sprintf(" (the fabric's name %q is no DNS subdomain, as an object name must be)", v.Fabric)
	}
	header(&b, v,
		"Kueue Topology: the fabric's levels from the widest to the narrowest, each a node label that",
		"label-nodes.sh or node-labels.yaml sets. A ResourceFlavor names it in spec.topologyName: "+name+note+".",
		"Install: kubectl apply -f kueue-topology.yaml",
	)
	fmt.Fprintf(&b, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: %q\nspec:\n  levels:\n", name)
	for _, l := range levels(v) {
		fmt.Fprintf(&b, "  - nodeLabel: %q\n", l)
	}
	return []byte(b.String())
}

func k8sArtifacts(v *ir.Placement) ([]renderers.Artifact, error) {
	script, err := labelScript(v)
	if err != nil {
		return nil, err
	}
	patches, err := nodePatches(v)
	if err != nil {
		return nil, err
	}
	return []renderers.Artifact{
		{Path: "k8s/label-nodes.sh", Format: renderers.Shell, Content: script},
		{Path: "k8s/node-labels.yaml", Format: renderers.YAML, Content: patches},
		{Path: "k8s/kueue-topology.yaml", Format: renderers.YAML, Content: kueueTopology(v)},
	}, nil
}

// Render returns the scheduler files of a fabric, paths relative to the
// output directory.
func Render(v *ir.Placement) ([]renderers.Artifact, error) {
	arts, err := slurmArtifacts(v)
	if err != nil {
		return nil, err
	}
	k8s, err := k8sArtifacts(v)
	if err != nil {
		return nil, err
	}
	return append(arts, k8s...), nil
}

// Renderer renders the schedulers' topology files from the placement of
// every server the compiler puts on the fabric (ir.Fabric.Placement), as
// a fabric-wide renderer of a build.
type Renderer struct{}

var _ renderers.FabricRenderer = Renderer{}

// RenderFabric renders slurm/ and k8s/ for the fabric.
func (Renderer) RenderFabric(fab *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	if fab.Placement == nil {
		return nil, fmt.Errorf("rendering the scheduler files of fabric %q: the fabric carries no placement (compiler.Compile derives it)", fab.Name)
	}
	arts, err := Render(fab.Placement)
	if err != nil {
		return nil, fmt.Errorf("rendering the scheduler files: %w", err)
	}
	return arts, nil
}
