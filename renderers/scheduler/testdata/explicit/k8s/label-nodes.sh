#!/usr/bin/env bash
# Fabric "lab_", written by rocefab: do not edit, rebuild.
# Labels each server's Kubernetes node with its place in the fabric:
#   rocefab.io/fabric      the fabric
#   rocefab.io/leaf-group  the servers whose NICs reach the same leaves
# A node is named after its server in lower case, as the kubelet registers a host name.
# Arguments go to kubectl label (e.g. --context prod, --dry-run=server); KUBECTL names another kubectl.
set -euo pipefail
kubectl=${KUBECTL:-kubectl}

# leafgroup-00: Node-1,node_2
"$kubectl" label --overwrite "$@" \
	'node/node-1' \
	'rocefab.io/fabric=lab' 'rocefab.io/leaf-group=leafgroup-00'

# leafgroup-01: node-3
"$kubectl" label --overwrite "$@" \
	'node/node-3' \
	'rocefab.io/fabric=lab' 'rocefab.io/leaf-group=leafgroup-01'

# wired to no switch: the fabric only
"$kubectl" label --overwrite "$@" \
	'node/node-4' \
	'rocefab.io/fabric=lab'

# Not labelled, their names being no Kubernetes node name (RFC 1123 subdomain): node_2
