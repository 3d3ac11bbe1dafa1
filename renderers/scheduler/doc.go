// Package scheduler renders the fabric's placement (compiler/placement)
// into the files job schedulers read, so that a job's ranks land where the
// fabric is closest instead of where a hand-written file says:
//
//	slurm/topology.conf        Slurm topology/tree: a switch per leaf group, per pod, and the fabric
//	slurm/topology-block.conf  Slurm topology/block: a base block per leaf group, BlockSizes by doubling
//	slurm/topology.yaml        both, in the topology.yaml form of Slurm 25.05 and later (tree by default)
//	k8s/label-nodes.sh         kubectl label: each server's node gets one label per level
//	k8s/node-labels.yaml       the same labels as one strategic-merge patch (a partial Node) per node
//	k8s/kueue-topology.yaml    a Kueue Topology listing the levels from the widest to the narrowest
//
// The node labels are rocefab.io/fabric, rocefab.io/pod (three tiers only)
// and rocefab.io/leaf-group; kubernetes.io/hostname, which the kubelet
// sets, is the Kueue Topology's narrowest level.
//
// Sources of the syntax, each cited where it is written:
//
//   - Slurm: topology.conf(5) and topology.yaml(5), and the parsers behind
//     them, at SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75
//     (doc/man/man5/topology.conf.5, doc/man/man5/topology.yaml.5,
//     src/plugins/topology/block/block_record.c, src/common/hostlist.c);
//     https://slurm.schedmd.com/topology.html.
//   - Kubernetes: kubectl label and kubectl patch
//     (https://kubernetes.io/docs/reference/kubectl/generated/kubectl_label/,
//     https://kubernetes.io/docs/reference/kubectl/generated/kubectl_patch/),
//     server-side apply
//     (https://kubernetes.io/docs/reference/using-api/server-side-apply/),
//     label syntax (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/).
//   - Kueue: the Topology CRD at
//     kubernetes-sigs/kueue@ff69552e79ad21652c36caa97038382e55625cf7
//     (config/components/crd/bases/kueue.x-k8s.io_topologies.yaml) and
//     https://kueue.sigs.k8s.io/docs/concepts/topology/.
package scheduler
