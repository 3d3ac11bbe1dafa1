#!/usr/bin/env bash
# Fabric "t", written by rocefab: do not edit, rebuild.
# Labels each server's Kubernetes node with its place in the fabric:
#   rocefab.io/fabric      the fabric
#   rocefab.io/pod         the pod: leaves and spines joined below the superspines
#   rocefab.io/leaf-group  the servers whose NICs reach the same leaves
# A node is named after its server in lower case, as the kubelet registers a host name.
# Arguments go to kubectl label (e.g. --context prod, --dry-run=server); KUBECTL names another kubectl.
set -euo pipefail
kubectl=${KUBECTL:-kubectl}

# leafgroup-00: gpu-[0000-0031]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0000' 'node/gpu-0001' 'node/gpu-0002' 'node/gpu-0003' 'node/gpu-0004' 'node/gpu-0005' 'node/gpu-0006' 'node/gpu-0007' \
	'node/gpu-0008' 'node/gpu-0009' 'node/gpu-0010' 'node/gpu-0011' 'node/gpu-0012' 'node/gpu-0013' 'node/gpu-0014' 'node/gpu-0015' \
	'node/gpu-0016' 'node/gpu-0017' 'node/gpu-0018' 'node/gpu-0019' 'node/gpu-0020' 'node/gpu-0021' 'node/gpu-0022' 'node/gpu-0023' \
	'node/gpu-0024' 'node/gpu-0025' 'node/gpu-0026' 'node/gpu-0027' 'node/gpu-0028' 'node/gpu-0029' 'node/gpu-0030' 'node/gpu-0031' \
	'rocefab.io/fabric=t' 'rocefab.io/pod=pod-00' 'rocefab.io/leaf-group=leafgroup-00'

# leafgroup-01: gpu-[0032-0063]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0032' 'node/gpu-0033' 'node/gpu-0034' 'node/gpu-0035' 'node/gpu-0036' 'node/gpu-0037' 'node/gpu-0038' 'node/gpu-0039' \
	'node/gpu-0040' 'node/gpu-0041' 'node/gpu-0042' 'node/gpu-0043' 'node/gpu-0044' 'node/gpu-0045' 'node/gpu-0046' 'node/gpu-0047' \
	'node/gpu-0048' 'node/gpu-0049' 'node/gpu-0050' 'node/gpu-0051' 'node/gpu-0052' 'node/gpu-0053' 'node/gpu-0054' 'node/gpu-0055' \
	'node/gpu-0056' 'node/gpu-0057' 'node/gpu-0058' 'node/gpu-0059' 'node/gpu-0060' 'node/gpu-0061' 'node/gpu-0062' 'node/gpu-0063' \
	'rocefab.io/fabric=t' 'rocefab.io/pod=pod-00' 'rocefab.io/leaf-group=leafgroup-01'

# leafgroup-02: gpu-[0064-0095]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0064' 'node/gpu-0065' 'node/gpu-0066' 'node/gpu-0067' 'node/gpu-0068' 'node/gpu-0069' 'node/gpu-0070' 'node/gpu-0071' \
	'node/gpu-0072' 'node/gpu-0073' 'node/gpu-0074' 'node/gpu-0075' 'node/gpu-0076' 'node/gpu-0077' 'node/gpu-0078' 'node/gpu-0079' \
	'node/gpu-0080' 'node/gpu-0081' 'node/gpu-0082' 'node/gpu-0083' 'node/gpu-0084' 'node/gpu-0085' 'node/gpu-0086' 'node/gpu-0087' \
	'node/gpu-0088' 'node/gpu-0089' 'node/gpu-0090' 'node/gpu-0091' 'node/gpu-0092' 'node/gpu-0093' 'node/gpu-0094' 'node/gpu-0095' \
	'rocefab.io/fabric=t' 'rocefab.io/pod=pod-00' 'rocefab.io/leaf-group=leafgroup-02'

# leafgroup-03: gpu-[0096-0127]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0096' 'node/gpu-0097' 'node/gpu-0098' 'node/gpu-0099' 'node/gpu-0100' 'node/gpu-0101' 'node/gpu-0102' 'node/gpu-0103' \
	'node/gpu-0104' 'node/gpu-0105' 'node/gpu-0106' 'node/gpu-0107' 'node/gpu-0108' 'node/gpu-0109' 'node/gpu-0110' 'node/gpu-0111' \
	'node/gpu-0112' 'node/gpu-0113' 'node/gpu-0114' 'node/gpu-0115' 'node/gpu-0116' 'node/gpu-0117' 'node/gpu-0118' 'node/gpu-0119' \
	'node/gpu-0120' 'node/gpu-0121' 'node/gpu-0122' 'node/gpu-0123' 'node/gpu-0124' 'node/gpu-0125' 'node/gpu-0126' 'node/gpu-0127' \
	'rocefab.io/fabric=t' 'rocefab.io/pod=pod-01' 'rocefab.io/leaf-group=leafgroup-03'

# leafgroup-04: gpu-[0128-0159]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0128' 'node/gpu-0129' 'node/gpu-0130' 'node/gpu-0131' 'node/gpu-0132' 'node/gpu-0133' 'node/gpu-0134' 'node/gpu-0135' \
	'node/gpu-0136' 'node/gpu-0137' 'node/gpu-0138' 'node/gpu-0139' 'node/gpu-0140' 'node/gpu-0141' 'node/gpu-0142' 'node/gpu-0143' \
	'node/gpu-0144' 'node/gpu-0145' 'node/gpu-0146' 'node/gpu-0147' 'node/gpu-0148' 'node/gpu-0149' 'node/gpu-0150' 'node/gpu-0151' \
	'node/gpu-0152' 'node/gpu-0153' 'node/gpu-0154' 'node/gpu-0155' 'node/gpu-0156' 'node/gpu-0157' 'node/gpu-0158' 'node/gpu-0159' \
	'rocefab.io/fabric=t' 'rocefab.io/pod=pod-01' 'rocefab.io/leaf-group=leafgroup-04'

# leafgroup-05: gpu-[0160-0191]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0160' 'node/gpu-0161' 'node/gpu-0162' 'node/gpu-0163' 'node/gpu-0164' 'node/gpu-0165' 'node/gpu-0166' 'node/gpu-0167' \
	'node/gpu-0168' 'node/gpu-0169' 'node/gpu-0170' 'node/gpu-0171' 'node/gpu-0172' 'node/gpu-0173' 'node/gpu-0174' 'node/gpu-0175' \
	'node/gpu-0176' 'node/gpu-0177' 'node/gpu-0178' 'node/gpu-0179' 'node/gpu-0180' 'node/gpu-0181' 'node/gpu-0182' 'node/gpu-0183' \
	'node/gpu-0184' 'node/gpu-0185' 'node/gpu-0186' 'node/gpu-0187' 'node/gpu-0188' 'node/gpu-0189' 'node/gpu-0190' 'node/gpu-0191' \
	'rocefab.io/fabric=t' 'rocefab.io/pod=pod-01' 'rocefab.io/leaf-group=leafgroup-05'

# leafgroup-06: gpu-[0192-0199]
"$kubectl" label --overwrite "$@" \
	'node/gpu-0192' 'node/gpu-0193' 'node/gpu-0194' 'node/gpu-0195' 'node/gpu-0196' 'node/gpu-0197' 'node/gpu-0198' 'node/gpu-0199' \
	'rocefab.io/fabric=t' 'rocefab.io/pod=pod-02' 'rocefab.io/leaf-group=leafgroup-06'
