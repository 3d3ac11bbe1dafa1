#!/usr/bin/env bash
# Fabric "r", written by rocefab: do not edit, rebuild.
# Labels each server's Kubernetes node with its place in the fabric:
#   rocefab.io/fabric      the fabric
#   rocefab.io/leaf-group  the servers whose NICs reach the same leaves
# A node is named after its server in lower case, as the kubelet registers a host name.
# Arguments go to kubectl label (e.g. --context prod, --dry-run=server); KUBECTL names another kubectl.
set -euo pipefail
kubectl=${KUBECTL:-kubectl}

# leafgroup-00: gpu-[0000-0015]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0000' 'node/gpu-0001' 'node/gpu-0002' 'node/gpu-0003' 'node/gpu-0004' 'node/gpu-0005' 'node/gpu-0006' 'node/gpu-0007' \
	'node/gpu-0008' 'node/gpu-0009' 'node/gpu-0010' 'node/gpu-0011' 'node/gpu-0012' 'node/gpu-0013' 'node/gpu-0014' 'node/gpu-0015' \
	'rocefab.io/fabric=r' 'rocefab.io/leaf-group=leafgroup-00'

# leafgroup-01: gpu-[0016-0031]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0016' 'node/gpu-0017' 'node/gpu-0018' 'node/gpu-0019' 'node/gpu-0020' 'node/gpu-0021' 'node/gpu-0022' 'node/gpu-0023' \
	'node/gpu-0024' 'node/gpu-0025' 'node/gpu-0026' 'node/gpu-0027' 'node/gpu-0028' 'node/gpu-0029' 'node/gpu-0030' 'node/gpu-0031' \
	'rocefab.io/fabric=r' 'rocefab.io/leaf-group=leafgroup-01'

# leafgroup-02: gpu-[0032-0039]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0032' 'node/gpu-0033' 'node/gpu-0034' 'node/gpu-0035' 'node/gpu-0036' 'node/gpu-0037' 'node/gpu-0038' 'node/gpu-0039' \
	'rocefab.io/fabric=r' 'rocefab.io/leaf-group=leafgroup-02'
