#!/usr/bin/env bash
# Fabric "c", written by rocefab: do not edit, rebuild.
# Labels each server's Kubernetes node with its place in the fabric:
#   rocefab.io/fabric      the fabric
#   rocefab.io/leaf-group  the servers whose NICs reach the same leaves
# A node is named after its server in lower case, as the kubelet registers a host name.
# Arguments go to kubectl label (e.g. --context prod, --dry-run=server); KUBECTL names another kubectl.
set -euo pipefail
kubectl=${KUBECTL:-kubectl}

# leafgroup-00: gpu-0000
"$kubectl" label --overwrite "$@" \
	'node/gpu-0000' \
	'rocefab.io/fabric=c' 'rocefab.io/leaf-group=leafgroup-00'

# leafgroup-01: gpu-0001
"$kubectl" label --overwrite "$@" \
	'node/gpu-0001' \
	'rocefab.io/fabric=c' 'rocefab.io/leaf-group=leafgroup-01'

# leafgroup-02: gpu-0002
"$kubectl" label --overwrite "$@" \
	'node/gpu-0002' \
	'rocefab.io/fabric=c' 'rocefab.io/leaf-group=leafgroup-02'

# leafgroup-03: gpu-0003
"$kubectl" label --overwrite "$@" \
	'node/gpu-0003' \
	'rocefab.io/fabric=c' 'rocefab.io/leaf-group=leafgroup-03'

# leafgroup-04: gpu-0004
"$kubectl" label --overwrite "$@" \
	'node/gpu-0004' \
	'rocefab.io/fabric=c' 'rocefab.io/leaf-group=leafgroup-04'

# leafgroup-05: gpu-0005
"$kubectl" label --overwrite "$@" \
	'node/gpu-0005' \
	'rocefab.io/fabric=c' 'rocefab.io/leaf-group=leafgroup-05'
