
# ---------------------------------------------------------------------------
# Runtime: the same on every server. Nothing below this line comes from the
# intent: the settings are all it reads, above this line in a single-file
# host.sh, otherwise from the settings file (--settings, default
# /etc/rocefab/host.conf) written for this runtime's digest.
# ---------------------------------------------------------------------------

shopt -s nullglob

# The sysfs root. configfs (kernel/config) and debugfs (kernel/debug) are
# looked up below it too, so that a test harness can point the script at a
# fake tree; on a server it is /sys.
SYS=${ROCEFAB_SYSFS:-/sys}
# Runs hold this lock one at a time (flock(1)): the unit's instances for the
# netdevs of a server start together at boot.
LOCK=${ROCEFAB_LOCK:-/run/lock/rocefab-host.lock}

readonly SECTIONS='mtu qos ecn tos shaping pfc'
readonly DEFAULT_SETTINGS=/etc/rocefab/host.conf
PROG=${0##*/}
CHECK=0
JSON=0
ONLY=''
ONLY_NETDEV=''
SETTINGS=''
drifts=0
changes=0
errors=0
NICS=()
# --check --json: the settings checked, as JSON member lines, and the
# notes and errors of the run as JSON strings.
J_SETTINGS=()
J_UNMANAGED=()
J_NOTES=()
J_ERRORS=()

usage() {
	cat <<EOF
Usage: $PROG [--check [--json]] [--only SECTION[,SECTION...]] [--netdev NAME]
       [--settings FILE]

Configures this server's RDMA NICs and tc shaping as the fabric intent says.
Every section reads the current state first and changes only what differs.

  --check     report each difference from the intent, one per line, and
              change nothing; exit 0 when in sync, 1 on drift
  --json      with --check: every setting checked, as one JSON document on
              stdout (path, have, want; the lines of the text report go to
              stderr); the exit status is the same
  --only      run only these sections, always in this order:
                mtu      netdev MTU of the RDMA NICs
                qos      DCBX mode, trust, dscp2prio, prio->tc, ETS, cable length
                ecn      ECN enable per priority, DCQCN parameters, CNP marking
                tos      rdma_cm default ToS (cma_roce_tos) of each HCA
                shaping  tc HTB egress shaping
                pfc      PFC enable vector (last: changing it flaps the link)
  --netdev    only what concerns this network interface: its NIC settings,
              its HCA's ToS and its shaping (the systemd unit's instance)
  --settings  the settings file (default $DEFAULT_SETTINGS); a single-file
              host.sh carries its own and takes none

Runs wait for each other (flock on $LOCK).
Exit status: 0 done or in sync, 1 drift (--check), 2 something could not be
read or written (see the ERROR lines).
EOF
}

# say: one line of the text report; with --json it goes to stderr, so
# that stdout holds the JSON document alone.
say() {
	if ((JSON)); then
		printf '%s\n' "$*" >&2
	else
		printf '%s\n' "$*"
	fi
}
note() {
	say "NOTE $*"
	if ((JSON)); then J_NOTES+=("$(json_str "$*")"); fi
}
err() {
	printf 'ERROR %s\n' "$*" >&2
	errors=$((errors + 1))
	if ((JSON)); then J_ERRORS+=("$(json_str "$*")"); fi
}

# json_str S: S as a JSON string. Control characters other than newline,
# tab and carriage return, which no setting holds, become blanks.
json_str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/\\t}
	s=${s//$'\r'/\\r}
	s=${s//[[:cntrl:]]/ }
	printf '"%s"' "$s"
}

# setting PATH HAVE WANT: with --json, records one setting checked: its
# path (netdev, HCA or interface, then what), the value it has and the one
# the intent wants, in the encoding rocefab's host platform uses
# (renderers/host, Desired). A WANT of "-" with a fourth argument "absent"
# says the intent wants the thing gone (an HTB class of an earlier intent).
setting() {
	((JSON)) || return 0
	local want
	want=$(json_str "$3")
	if [[ ${4:-} == absent ]]; then want=null; fi
	J_SETTINGS+=("{\"path\": $(json_str "$1"), \"have\": $(json_str "$2"), \"want\": $want}")
}

# unmanaged PATH WHY: with --json, a setting of the intent this server
# cannot take at run time, and why.
unmanaged() {
	((JSON)) || return 0
	J_UNMANAGED+=("{\"path\": $(json_str "$1"), \"why\": $(json_str "$2")}")
}

# json_document: the --check --json report. Its layout (one member or
# array element per line, in this order) is the one rocefab writes for a
# host's running state, so that a state file rocefab rewrites reads like
# one the host wrote.
json_document() {
	printf '{\n'
	printf '  "device": %s,\n' "$(json_str "$DEVICE")"
	printf '  "runtime": %s,\n' "$(json_str "$RUNTIME_DIGEST")"
	printf '  "tool": %s,\n' "$(json_str "$TOOL")"
	json_array settings "${J_SETTINGS[@]}"
	printf ',\n'
	json_array unmanaged "${J_UNMANAGED[@]}"
	printf ',\n'
	json_array notes "${J_NOTES[@]}"
	printf ',\n'
	json_array errors "${J_ERRORS[@]}"
	printf '\n}\n'
}

# json_array NAME ELEMENT...: a member whose value is an array, one element
# per line, without the line's end.
json_array() {
	local name=$1 i
	shift
	if (($# == 0)); then
		printf '  "%s": []' "$name"
		return 0
	fi
	printf '  "%s": [\n' "$name"
	for ((i = 1; i <= $#; i++)); do
		if ((i < $#)); then
			printf '    %s,\n' "${!i}"
		else
			printf '    %s\n  ]' "${!i}"
		fi
	done
}
die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 2
}

# differ WHAT HAVE WANT: WHAT is not as the intent says. With --check it is
# reported and the caller must leave it alone (status 1); otherwise it is
# announced and the caller changes it (status 0).
differ() {
	if ((CHECK)); then
		say "DRIFT $1: have ${2:-?}, want $3"
		drifts=$((drifts + 1))
		return 1
	fi
	say "CHANGE $1: ${2:-?} -> $3"
	changes=$((changes + 1))
	return 0
}

# shown CMD...: the command as a shell would read it back.
shown() {
	local a out=''
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9._,:/=+@%-]+$ ]]; then out+=" $a"; else out+=" $(printf '%q' "$a")"; fi
	done
	printf '%s' "$out"
}

# run CMD...: one write, echoed. A failed write stops the script: the next
# steps (PFC last of all) assume the earlier ones took, and a re-run picks
# up from the first difference.
run() {
	local out
	say "  +$(shown "$@")"
	if ! out=$("$@" 2>&1); then
		die "failed: $*${out:+: $out}"
	fi
}

# put VALUE FILE: one sysfs/debugfs/configfs write, echoed; fails like run.
put() {
	say "  + echo $1 > $2"
	if ! { printf '%s\n' "$1" >"$2"; } 2>/dev/null; then
		die "failed: cannot write $1 to $2"
	fi
}

# get FILE: the first line of a sysfs/debugfs/configfs file, without blanks.
get() {
	local v=''
	IFS= read -r v 2>/dev/null <"$1" || [[ -n $v ]] || return 1
	printf '%s' "${v//[[:space:]]/}"
}

# knob WHAT PATH FILE WANT: makes FILE hold WANT. PATH names the setting
# in the --json report; an empty PATH leaves it out.
knob() {
	local have
	if ! have=$(get "$3"); then
		err "$1: cannot read $3"
		return 0
	fi
	if [[ -n $2 ]]; then setting "$2" "$have" "$4"; fi
	if [[ $have != "$4" ]] && differ "$1" "$have" "$4"; then
		put "$4" "$3"
	fi
}

# json_value JSON KEY: the first scalar value of KEY in one line of JSON
# (iproute2's -j output is one line), without quotes.
json_value() {
	local re="\"$2\":(\"[^\"]*\"|[^],}]*)" v
	[[ $1 =~ $re ]] || return 0
	v=${BASH_REMATCH[1]}
	v=${v#\"}
	printf '%s' "${v%\"}"
}

# json_list JSON KEY: the elements of KEY's flat array, space separated,
# without quotes.
json_list() {
	local re="\"$2\":\\[([^]]*)\\]" v
	[[ $1 =~ $re ]] || return 0
	v=${BASH_REMATCH[1]//\"/}
	printf '%s' "${v//,/ }"
}

# runs D:V...: "D:V" pairs with consecutive DSCPs of one value merged into
# "FIRST-LAST:V", so that a whole table fits on a line.
runs() {
	local out='' first=-1 last=-1 val='' d v pair
	for pair in "$@" 0:; do
		d=${pair%%:*} v=${pair#*:}
		if ((first >= 0)) && [[ $v == "$val" && -n $v ]] && ((d == last + 1)); then
			last=$d
			continue
		fi
		if ((first >= 0)); then
			if ((first == last)); then out+=" $first:$val"; else out+=" $first-$last:$val"; fi
		fi
		first=$d last=$d val=$v
	done
	printf '%s' "${out# }"
}

join() {
	local IFS=$1
	shift
	printf '%s' "$*"
}

selected() {
	[[ -z $ONLY || ",$ONLY," == *",$1,"* ]]
}

need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 is required ($2) but is not installed or not in PATH"
}

# ---- NIC QoS read-back -----------------------------------------------------
# qos_read DEV fills, from mlnx_qos or dcb, in one shape for both tools:
#   q_dcbx      host | firmware
#   q_trust     dscp | pcp | none
#   q_dscp[d]   priority of DSCP d, "-" when unmapped, "a+b" when mapped twice
#   q_prio_tc[p], q_tsa[tc], q_bw[tc], q_pfc[p], q_cable   ("-" when unknown)
#   q_rate[tc]  the traffic class's rate limit in kbit/s, 0 = unlimited
declare -A QOS_OUT=()
q_dcbx='' q_trust='' q_cable=''
q_dscp=() q_prio_tc=() q_tsa=() q_bw=() q_pfc=() q_rate=()

qos_reset() {
	local i
	q_dcbx='-' q_trust='-' q_cable='-'
	q_dscp=() q_prio_tc=() q_tsa=() q_bw=() q_pfc=() q_rate=()
	for i in {0..63}; do q_dscp[i]='-'; done
	for i in {0..7}; do
		q_prio_tc[i]='-' q_tsa[i]='-' q_bw[i]='-' q_pfc[i]='-' q_rate[i]='-'
	done
}

# qos_forget DEV: the NIC was written; read it again next time.
qos_forget() { unset 'QOS_OUT[$1]'; }

qos_read() {
	qos_reset
	if [[ $TOOL == mlnx_qos ]]; then qos_read_mlnx_qos "$1"; else qos_read_dcb "$1"; fi
}

dscp_add() {
	if [[ ${q_dscp[$1]} == - ]]; then q_dscp[$1]=$2; else q_dscp[$1]+="+$2"; fi
}

# mlnx_qos -i DEV prints its state as text (mlnx-tools python/mlnx_qos
# pretty_print); older MLNX_OFED releases indent differently, so every match
# tolerates blanks.
qos_read_mlnx_qos() {
	local dev=$1 out line d tc=-1 p
	local re_dcbx='^[[:space:]]*DCBX mode:[[:space:]]*(.*[^[:space:]])'
	local re_trust='^[[:space:]]*Priority trust state:[[:space:]]*([a-z]+)'
	local re_map='^[[:space:]]*prio:([0-7])[[:space:]]+dscp:[[:space:]]*([0-9,]*)'
	local re_cable='^[[:space:]]*[Cc]able[_ ]len[^:]*:[[:space:]]*([0-9]+)'
	local re_pfc='^[[:space:]]*enabled(([[:space:]]+[01]){8})[[:space:]]*$'
	local re_tc='^[[:space:]]*tc:[[:space:]]*([0-7])[[:space:]].*tsa:[[:space:]]*([a-z]+)(,[[:space:]]*bw:[[:space:]]*([0-9]+)%)?'
	local re_prio='^[[:space:]]*priority:[[:space:]]*([0-7])[[:space:]]*$'
	# "tc: 3 ratelimit: 25.0 Gbps, tsa: ets": Gbit/s with one decimal, or
	# "unlimited" (hosts.md 1.3).
	local re_rate='^[[:space:]]*tc:[[:space:]]*([0-7])[[:space:]]+ratelimit:[[:space:]]*(unlimited|([0-9]+)(\.([0-9]))?[0-9]*[[:space:]]*Gbps)'
	if [[ -z ${QOS_OUT[$dev]+set} ]]; then
		if ! out=$(mlnx_qos -i "$dev" 2>&1); then
			err "$dev: mlnx_qos -i $dev failed: $out"
			return 1
		fi
		QOS_OUT[$dev]=$out
	fi
	while IFS= read -r line; do
		if [[ $line =~ $re_dcbx ]]; then
			if [[ ${BASH_REMATCH[1]} == OS* ]]; then q_dcbx=host; else q_dcbx=firmware; fi
		elif [[ $line =~ $re_trust ]]; then
			q_trust=${BASH_REMATCH[1]}
		elif [[ $line =~ $re_map ]]; then
			p=${BASH_REMATCH[1]}
			for d in ${BASH_REMATCH[2]//,/ }; do dscp_add $((10#$d)) "$p"; done
		elif [[ $line =~ $re_cable ]]; then
			q_cable=${BASH_REMATCH[1]}
		elif [[ $line =~ $re_pfc ]]; then
			read -ra q_pfc <<<"${BASH_REMATCH[1]}"
		elif [[ $line =~ $re_tc ]]; then
			if [[ $line =~ $re_rate ]]; then
				if [[ ${BASH_REMATCH[2]} == unlimited ]]; then
					q_rate[BASH_REMATCH[1]]=0
				else
					q_rate[BASH_REMATCH[1]]=$((10#${BASH_REMATCH[3]} * 1000000 + 10#${BASH_REMATCH[5]:-0} * 100000))
				fi
				[[ $line =~ $re_tc ]]
			fi
			tc=${BASH_REMATCH[1]}
			q_tsa[tc]=${BASH_REMATCH[2]}
			q_bw[tc]=${BASH_REMATCH[4]:-0}
		elif [[ $line =~ $re_prio ]] && ((tc >= 0)); then
			q_prio_tc[BASH_REMATCH[1]]=$tc
		fi
	done <<<"${QOS_OUT[$dev]}"
	return 0
}

# dcb -j prints one line of JSON per object (iproute2 dcb/dcb_*.c).
qos_read_dcb() {
	local dev=$1 js rest v i
	if ! js=$(dcb -j dcbx show dev "$dev" 2>&1); then
		err "$dev: dcb dcbx show failed: $js"
		return 1
	fi
	if [[ $(json_value "$js" host) == true ]]; then q_dcbx=host; else q_dcbx=firmware; fi
	if ! js=$(dcb -j app show dev "$dev" dscp-prio 2>&1); then
		err "$dev: dcb app show failed: $js"
		return 1
	fi
	# [[26,3],[48,6]]; iproute2 6.5 and later add a string: [[26,3," "],...].
	q_trust=pcp
	if [[ $js == *'"dscp_prio":['* ]]; then
		rest=${js#*'"dscp_prio":['}
		rest=${rest%%']]'*}
		while [[ $rest =~ \[([0-9]+),([0-9]+) ]]; do
			dscp_add "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
			q_trust=dscp
			rest=${rest#*"${BASH_REMATCH[0]}"}
		done
	fi
	if ! js=$(dcb -j ets show dev "$dev" 2>&1); then
		err "$dev: dcb ets show failed: $js"
		return 1
	fi
	read -ra v <<<"$(json_list "$js" prio_tc)"
	for i in "${!v[@]}"; do q_prio_tc[i]=${v[i]}; done
	read -ra v <<<"$(json_list "$js" tc_tsa)"
	for i in "${!v[@]}"; do q_tsa[i]=${v[i]}; done
	read -ra v <<<"$(json_list "$js" tc_bw)"
	for i in "${!v[@]}"; do q_bw[i]=${v[i]}; done
	if ! js=$(dcb -j pfc show dev "$dev" 2>&1); then
		err "$dev: dcb pfc show failed: $js"
		return 1
	fi
	read -ra v <<<"$(json_list "$js" prio_pfc)"
	for i in "${!v[@]}"; do
		if [[ ${v[i]} == true ]]; then q_pfc[i]=1; else q_pfc[i]=0; fi
	done
	q_cable=$(json_value "$js" delay)
	q_cable=${q_cable:--}
	# tc_maxrate in bytes/s, the kernel's kbit/s times 125 (hosts.md 2.1).
	if ! js=$(dcb -j maxrate show dev "$dev" 2>&1); then
		err "$dev: dcb maxrate show failed: $js"
		return 1
	fi
	read -ra v <<<"$(json_list "$js" tc_maxrate)"
	for i in "${!v[@]}"; do
		if [[ ${v[i]} =~ ^[0-9]+$ ]]; then q_rate[i]=$((v[i] / 125)); fi
	done
}

# ---- mtu -------------------------------------------------------------------
section_mtu() {
	local dev js have
	for dev in "${NICS[@]}"; do
		if ! js=$(ip -j link show dev "$dev" 2>&1); then
			err "$dev: ip link show failed: $js"
			continue
		fi
		have=$(json_value "$js" mtu)
		setting "$dev/mtu" "$have" "$MTU"
		if [[ $have != "$MTU" ]] && differ "$dev mtu" "$have" "$MTU"; then
			run ip link set dev "$dev" mtu "$MTU"
		fi
	done
}

# ---- qos -------------------------------------------------------------------
section_qos() {
	local dev
	for dev in "${NICS[@]}"; do
		qos_netdev "$dev"
	done
}

qos_netdev() {
	local dev=$1 d tc p
	local -a have=() want=() args=() used=()
	qos_read "$dev" || return 0

	# Host-controlled DCBX: in firmware mode a willing NIC may take the
	# switch's advertised settings over these.
	setting "$dev/dcbx" "$q_dcbx" host
	if [[ $q_dcbx != host ]] && differ "$dev dcbx" "$q_dcbx" host; then
		if [[ $TOOL == mlnx_qos ]]; then
			run mlnx_qos -i "$dev" -d os
		else
			run dcb dcbx set dev "$dev" host ieee
		fi
		qos_forget "$dev"
		qos_read "$dev" || return 0
	fi

	# Trust DSCP. mlnx_qos refuses --trust and --dscp2prio in one
	# invocation, so trust is its own write. With dcb the DSCP entries below
	# are the trust: mlx5 trusts DSCP from its first DSCP APP entry and has no
	# apptrust operation (hosts.md 0.3, 1.6).
	if [[ $TOOL == mlnx_qos ]]; then setting "$dev/trust" "$q_trust" "$TRUST"; fi
	if [[ $TOOL == mlnx_qos && $q_trust != "$TRUST" ]] && differ "$dev trust" "$q_trust" "$TRUST"; then
		run mlnx_qos -i "$dev" --trust "$TRUST"
		qos_forget "$dev"
		qos_read "$dev" || return 0
	fi

	# dscp2prio for all 64 DSCPs: trust dscp alone maps DSCP d to d>>3,
	# which would put unlisted DSCPs 8-15 on priority 1.
	if ((JSON)); then
		for d in {0..63}; do
			have+=("$d:${q_dscp[d]}")
			want+=("$d:${DSCP2PRIO[d]}")
		done
		setting "$dev/dscp2prio" "$(runs "${have[@]}")" "$(runs "${want[@]}")"
		have=() want=()
	fi
	for d in {0..63}; do
		if [[ ${q_dscp[d]} != "${DSCP2PRIO[d]}" ]]; then
			have+=("$d:${q_dscp[d]}")
			want+=("$d:${DSCP2PRIO[d]}")
			if [[ $TOOL == mlnx_qos ]]; then
				args+=(--dscp2prio "set,$d,${DSCP2PRIO[d]}")
			else
				args+=("$d:${DSCP2PRIO[d]}")
			fi
		fi
	done
	if ((${#want[@]})) && differ "$dev dscp2prio" "$(runs "${have[@]}")" "$(runs "${want[@]}")"; then
		if [[ $TOOL == mlnx_qos ]]; then
			run mlnx_qos -i "$dev" "${args[@]}"
		else
			# replace: adds the mapping and removes the DSCP's other priorities.
			run dcb app replace dev "$dev" dscp-prio "${args[@]}"
		fi
		qos_forget "$dev"
		qos_read "$dev" || return 0
	fi

	# prio -> tc, TSA and ETS shares, written together: mlnx_qos resets the
	# lists it is not given. mlnx_qos prints only the TCs that have a
	# priority, so only those are compared.
	for p in {0..7}; do used[PRIO_TC[p]]=1; done
	have=("prio_tc=$(join , "${q_prio_tc[@]}")")
	want=("prio_tc=$(join , "${PRIO_TC[@]}")")
	for tc in {0..7}; do
		if [[ $TOOL == dcb || -n ${used[tc]:-} ]]; then
			have+=("tc$tc=${q_tsa[tc]}/${q_bw[tc]}")
			want+=("tc$tc=${TSA[tc]}/${TCBW[tc]}")
		fi
	done
	setting "$dev/ets" "${have[*]}" "${want[*]}"
	if [[ ${have[*]} != "${want[*]}" ]] && differ "$dev ets" "${have[*]}" "${want[*]}"; then
		if [[ $TOOL == mlnx_qos ]]; then
			run mlnx_qos -i "$dev" --prio_tc "$(join , "${PRIO_TC[@]}")" \
				--tsa "$(join , "${TSA[@]}")" --tcbw "$(join , "${TCBW[@]}")"
		else
			args=(prio-tc)
			for p in {0..7}; do args+=("$p:${PRIO_TC[p]}"); done
			args+=(tc-tsa)
			for tc in {0..7}; do args+=("$tc:${TSA[tc]}"); done
			args+=(tc-bw)
			for tc in {0..7}; do args+=("$tc:${TCBW[tc]}"); done
			run dcb ets set dev "$dev" "${args[@]}"
		fi
		qos_forget "$dev"
		qos_read "$dev" || return 0
	fi

	# Per-traffic-class rate limits: the classes the intent sends over RDMA,
	# which tc cannot see (hosts.md 0.7). mlnx_qos -r takes whole Gbit/s, dcb
	# maxrate a rate per traffic class; 0 lifts a limit.
	local rec
	local -a want_rate=()
	for rec in "${TC_MAXRATE[@]}"; do
		if [[ ${rec%% *} == "$dev" ]]; then read -ra want_rate <<<"${rec#* }"; fi
	done
	if ((${#want_rate[@]} == 8)); then
		setting "$dev/maxrate" "$(join , "${q_rate[@]}")" "$(join , "${want_rate[@]}")"
	fi
	if ((${#want_rate[@]} == 8)) && [[ "${q_rate[*]}" != "${want_rate[*]}" ]] &&
		differ "$dev tc maxrate (kbit/s)" "$(join , "${q_rate[@]}")" "$(join , "${want_rate[@]}")"; then
		if [[ $TOOL == mlnx_qos ]]; then
			args=()
			for tc in {0..7}; do args+=($((want_rate[tc] / 1000000))); done
			run mlnx_qos -i "$dev" -r "$(join , "${args[@]}")"
		else
			args=(tc-maxrate)
			for tc in {0..7}; do
				if ((want_rate[tc] == 0)); then args+=("$tc:0"); else args+=("$tc:${want_rate[tc]}kbit"); fi
			done
			run dcb maxrate set dev "$dev" "${args[@]}"
		fi
		qos_forget "$dev"
		qos_read "$dev" || return 0
	fi

	# Cable length: mlx5 sizes the receive headroom (xoff/xon) from it.
	if ((CABLE_LEN > 0)); then setting "$dev/cable_len" "$q_cable" "$CABLE_LEN"; fi
	if ((CABLE_LEN > 0)) && [[ $q_cable != "$CABLE_LEN" ]] && differ "$dev cable_len" "$q_cable" "$CABLE_LEN"; then
		if [[ $TOOL == mlnx_qos ]]; then
			# Older mlnx_qos writes PFC and cable length as one unit and zeroes
			# the one it is not given: pass the current PFC vector unchanged,
			# so this write cannot flap the link.
			if [[ " ${q_pfc[*]} " == *' - '* ]]; then
				err "$dev: cannot read the PFC vector; cable length not written"
				return 0
			fi
			run mlnx_qos -i "$dev" --cable_len "$CABLE_LEN" --pfc "$(join , "${q_pfc[@]}")"
		else
			run dcb pfc set dev "$dev" delay "$CABLE_LEN"
		fi
		qos_forget "$dev"
	fi
}

# ---- pfc (last) ------------------------------------------------------------
section_pfc() {
	local dev p cable
	local -a args=()
	for dev in "${NICS[@]}"; do
		qos_read "$dev" || continue
		setting "$dev/pfc" "$(join , "${q_pfc[@]}")" "$(join , "${PFC[@]}")"
		if [[ "${q_pfc[*]}" == "${PFC[*]}" ]]; then
			continue
		fi
		# A vector that could not be read is never written blind: every run
		# would flap the link.
		if [[ " ${q_pfc[*]} " == *' - '* ]]; then
			err "$dev: cannot read the PFC vector from $TOOL; PFC not checked or written"
			continue
		fi
		differ "$dev pfc" "$(join , "${q_pfc[@]}")" "$(join , "${PFC[@]}") (the write flaps the link)" || continue
		if [[ $TOOL == mlnx_qos ]]; then
			# Pass the cable length too, for the mlnx_qos releases that zero it.
			cable=$CABLE_LEN
			if ((cable <= 0)); then cable=$q_cable; fi
			if [[ $cable == - ]]; then
				run mlnx_qos -i "$dev" --pfc "$(join , "${PFC[@]}")"
			else
				run mlnx_qos -i "$dev" --pfc "$(join , "${PFC[@]}")" --cable_len "$cable"
			fi
		else
			args=(prio-pfc)
			for p in {0..7}; do
				if ((PFC[p])); then args+=("$p:on"); else args+=("$p:off"); fi
			done
			run dcb pfc set dev "$dev" "${args[@]}"
		fi
		qos_forget "$dev"
	done
}

# ---- ecn -------------------------------------------------------------------
section_ecn() {
	local dev base pci dbg
	if ((${#NIC_CC[@]})); then
		cc_vendor
		return 0
	fi
	for dev in "${NICS[@]}"; do
		nic_firmware "$dev"
		base=$SYS/class/net/$dev/ecn
		if [[ -d $base/roce_np && -d $base/roce_rp ]]; then
			ecn_ofed "$dev" "$base"
			continue
		fi
		pci=$(readlink -f "$SYS/class/net/$dev/device" 2>/dev/null) || pci=''
		pci=${pci##*/}
		dbg=$SYS/kernel/debug/mlx5/${pci:-unknown}/cc_params
		if [[ -n $pci && -d $dbg ]]; then
			ecn_debugfs "$dev" "$dbg"
			continue
		fi
		err "$dev: neither MLNX_OFED ECN sysfs ($base) nor mlx5 debugfs ($dbg, needs debugfs mounted): ECN/DCQCN not configured"
	done
}

# nic_firmware DEV: the firmware (NV config) settings NIC_FIRMWARE names,
# read with `mlxconfig -d PCI query NAME` (NVIDIA MFT, "Examples of mlxconfig
# Usage": a line "NAME True(1)", the next-boot value last). A difference is
# drift with --check and a note otherwise: setting it takes a firmware
# reset, which this runtime never does.
nic_firmware() {
	local dev=$1 rec name want pci out line have
	((${#NIC_FIRMWARE[@]})) || return 0
	pci=$(readlink -f "$SYS/class/net/$dev/device" 2>/dev/null) || pci=''
	pci=${pci##*/}
	for rec in "${NIC_FIRMWARE[@]}"; do
		read -r name want <<<"$rec"
		if ! command -v mlxconfig >/dev/null 2>&1; then
			note "$dev: mlxconfig (NVIDIA MFT) not found: the firmware setting $name=$want is not checked"
			continue
		fi
		if [[ -z $pci ]] || ! out=$(mlxconfig -d "$pci" query "$name" 2>&1); then
			err "$dev: cannot read the firmware setting $name${pci:+ of $pci}${out:+: ${out//$'\n'/ }}"
			continue
		fi
		have=''
		while IFS= read -r line; do
			if [[ $line =~ ^[[:space:]]*${name}[[:space:]] ]]; then
				have=${line##*[[:space:]]}
				if [[ $have =~ \(([0-9]+)\)$ ]]; then have=${BASH_REMATCH[1]}; fi
			fi
		done <<<"$out"
		if [[ $have == "$want" ]]; then continue; fi
		if ((CHECK)); then
			differ "$dev firmware $name" "${have:-?}" "$want" || true
		else
			note "$dev: firmware $name is ${have:-unknown}, want $want: mlxconfig -d $pci -y set $name=$want, then reset the firmware (mlxfwreset) or reboot; not done here"
		fi
	done
}

# MLNX_OFED / DOCA-OFED: per-priority enable and per-interface parameters.
ecn_ofed() {
	local dev=$1 base=$2 p point name file value rec rp np
	for p in {0..7}; do
		for point in roce_rp roce_np; do
			knob "$dev ecn $point prio $p" "$dev/ecn/${point#roce_}/$p" "$base/$point/enable/$p" "${ECN_ENABLE[p]}"
		done
	done
	# NVIDIA documents both ecn/<point>/params/<name> and ecn/<point>/<name>.
	rp=$base/roce_rp
	np=$base/roce_np
	if [[ -d $rp/params ]]; then rp=$rp/params; fi
	if [[ -d $np/params ]]; then np=$np/params; fi
	if ((CNP_DSCP >= 0)); then
		knob "$dev ecn cnp_dscp" "$dev/ecn/cnp_dscp" "$np/cnp_dscp" "$CNP_DSCP"
		knob "$dev ecn cnp_802p_prio" "$dev/ecn/cnp_prio" "$np/cnp_802p_prio" "$CNP_PRIO"
	fi
	for rec in "${DCQCN_PARAMS[@]}"; do
		read -r point name _ value <<<"$rec"
		if [[ $point == rp ]]; then file=$rp/$name; else file=$np/$name; fi
		knob "$dev dcqcn $name" "$dev/dcqcn/$name" "$file" "$value"
	done
}

# Inbox mlx5: debugfs cc_params, per port for all priorities
# (drivers/infiniband/hw/mlx5/cong.c).
ecn_debugfs() {
	local dev=$1 dbg=$2 rec iname name value have mode p point
	note "$dev: inbox mlx5 driver: per-priority ECN enable is not exposed at run time; the firmware's ROCE_CC_PRIO_MASK governs it (see the comment on ECN_ENABLE)"
	for p in {0..7}; do
		for point in rp np; do
			unmanaged "$dev/ecn/$point/$p" "inbox mlx5 driver: the firmware setting ROCE_CC_PRIO_MASK decides, not a run-time knob"
		done
	done
	if ((CNP_DSCP >= 0)); then
		knob "$dev dcqcn np_cnp_dscp" "$dev/ecn/cnp_dscp" "$dbg/np_cnp_dscp" "$CNP_DSCP"
		# Writing np_cnp_prio also sets np_cnp_prio_mode to 0 (use it).
		if ! have=$(get "$dbg/np_cnp_prio") || ! mode=$(get "$dbg/np_cnp_prio_mode"); then
			err "$dev: cannot read $dbg/np_cnp_prio or np_cnp_prio_mode"
		else
			# A priority the NIC does not use (mode 1) is not the intent's.
			if [[ $mode == 0 ]]; then
				setting "$dev/ecn/cnp_prio" "$have" "$CNP_PRIO"
			else
				setting "$dev/ecn/cnp_prio" "$have (mode $mode)" "$CNP_PRIO"
			fi
			if [[ $have != "$CNP_PRIO" || $mode != 0 ]] &&
				differ "$dev dcqcn np_cnp_prio" "$have (mode $mode)" "$CNP_PRIO (mode 0)"; then
				put "$CNP_PRIO" "$dbg/np_cnp_prio"
			fi
		fi
	fi
	for rec in "${DCQCN_PARAMS[@]}"; do
		read -r _ iname name value <<<"$rec"
		knob "$dev dcqcn $name" "$dev/dcqcn/$iname" "$dbg/$name" "$value"
	done
}

# cc_vendor: the congestion control of a NIC whose driver is not mlx5, from
# NIC_CC ("driver name value"), on each HCA's configfs group, which is made
# if it is not there and removed again (a handle on the device, not a
# setting). bnxt_re (Broadcom bnxt_re README, Congestion Control) stages
# the values in <hca>/ports/1/cc and writes them to the NIC with
# "echo 0x1 > apply"; irdma (Intel irdma README, ECN Configuration) takes
# each write at once.
cc_vendor() {
	local i drv base sub rec name value before
	drv=${NIC_CC[0]%% *}
	base=$SYS/kernel/config/$drv
	if [[ ! -d $base ]]; then
		err "$base is missing: mount configfs (mount -t configfs none $SYS/kernel/config) and load the $drv driver that has it; congestion control not set"
		return 0
	fi
	for i in "${!NETDEVS[@]}"; do
		if [[ -n $ONLY_NETDEV && ${NETDEVS[i]} != "$ONLY_NETDEV" ]]; then continue; fi
		hca_find "$i" 'congestion control not set' || continue
		group_open "$base" 'congestion control not set' || continue
		sub=$GROUP
		if [[ $drv == bnxt_re ]]; then sub=$GROUP/ports/1/cc; fi
		before=$changes
		for rec in "${NIC_CC[@]}"; do
			read -r _ name value <<<"$rec"
			knob "$HCA $drv $name" "$(hca_path "$i" cc)/$name" "$sub/$name" "$value"
		done
		if [[ $drv == bnxt_re ]] && ((changes > before)); then put 0x1 "$sub/apply"; fi
		if ((GROUP_MADE)); then rmdir "$GROUP" 2>/dev/null || true; fi
	done
}

# hca_find I WHY: sets HCA to NETDEVS[I]'s RDMA device: the settings' or,
# when they leave it to be found, the one sysfs shows. Fails, with an error
# ending in WHY, when there is none.
HCA='' GROUP='' GROUP_MADE=0
hca_find() {
	HCA=${HCAS[$1]}
	if [[ -z $HCA ]]; then
		HCA=$(hca_of "${NETDEVS[$1]}")
		if [[ -z $HCA ]]; then
			err "${NETDEVS[$1]}: no RDMA device found under $SYS/class/net/${NETDEVS[$1]}/device/infiniband; $2"
			return 1
		fi
	fi
}

# group_open BASE WHY: sets GROUP to HCA's configfs group below BASE, made
# if it is not there (then GROUP_MADE=1: remove it when done; it is a
# handle on the device, not a setting). Fails, with an error ending in
# WHY, when it cannot be made.
group_open() {
	GROUP=$1/$HCA GROUP_MADE=0
	if [[ ! -d $GROUP ]]; then
		if ! mkdir "$GROUP" 2>/dev/null; then
			err "$HCA: cannot create $GROUP (no such RDMA device?); $2"
			return 1
		fi
		GROUP_MADE=1
	fi
}

# hca_path I WHAT: the --json path of NETDEVS[I]'s HCA setting WHAT: the
# HCA's name from the settings, or the netdev's when the settings leave the
# HCA to be found at run time, so that the path does not depend on what
# this server finds.
hca_path() {
	if [[ -n ${HCAS[$1]} ]]; then
		printf '%s/%s' "${HCAS[$1]}" "$2"
	else
		printf '%s/%s' "${NETDEVS[$1]}" "$2"
	fi
}

# ---- tos -------------------------------------------------------------------
# rdma_cm's default ToS, as cma_roce_tos sets it: make the configfs group of
# the HCA if it is not there, set every port, remove the group again. The
# group is a handle on the device, not a setting; the ToS stays.
section_tos() {
	local cfg=$SYS/kernel/config/rdma_cm i port ports v
	local -a vals
	local -A done_hca=() tos_have=()
	if [[ ! -d $cfg ]]; then
		err "$cfg is missing: mount configfs (mount -t configfs none $SYS/kernel/config) and load rdma_cm (modprobe rdma_cm); cma_roce_tos not set"
		return 0
	fi
	for i in "${!NETDEVS[@]}"; do
		if [[ -n $ONLY_NETDEV && ${NETDEVS[i]} != "$ONLY_NETDEV" ]]; then continue; fi
		hca_find "$i" 'cma_roce_tos not set' || continue
		if [[ -n ${done_hca[$HCA]:-} ]]; then
			# A second netdev of the HCA: its ToS is the HCA's, read once.
			if [[ -n ${tos_have[$HCA]+set} ]]; then setting "$(hca_path "$i" tos)" "${tos_have[$HCA]}" "$ROCE_TOS"; fi
			continue
		fi
		done_hca[$HCA]=1
		group_open "$cfg" 'cma_roce_tos not set' || continue
		ports=0
		vals=()
		for port in "$GROUP"/ports/*; do
			if v=$(get "$port/default_roce_tos"); then vals+=("${port##*/}:$v"); fi
			knob "$HCA port ${port##*/} cma_roce_tos" '' "$port/default_roce_tos" "$ROCE_TOS"
			ports=$((ports + 1))
		done
		if ((ports == 0)); then err "$HCA: no ports under $GROUP/ports; cma_roce_tos not set"; fi
		if ((ports > 0 && ${#vals[@]} == ports)); then
			tos_have[$HCA]=$(tos_of "${vals[@]}")
			setting "$(hca_path "$i" tos)" "${tos_have[$HCA]}" "$ROCE_TOS"
		fi
		if ((GROUP_MADE)); then rmdir "$GROUP" 2>/dev/null || true; fi
	done
}

# tos_of PORT:TOS...: the HCA's ToS, one value when every port has it,
# otherwise each port's as "PORT:TOS" separated by blanks.
tos_of() {
	local first=${1#*:} pv
	for pv in "$@"; do
		if [[ ${pv#*:} != "$first" ]]; then
			printf '%s' "$*"
			return 0
		fi
	done
	printf '%s' "$first"
}

hca_of() {
	local d
	for d in "$SYS/class/net/$1/device/infiniband/"*; do
		printf '%s' "${d##*/}"
		return 0
	done
}

# ---- shaping ---------------------------------------------------------------
# tc_rate_text BYTES_PER_SECOND: a rate as tc prints it (iproute2
# print_color_rate): bits/s in the largest unit that keeps it exact, or that
# leaves less than 1000000 of it.
tc_rate_text() {
	local r i=0
	local -a units=('' K M G T)
	if [[ ! $1 =~ ^[0-9]+$ ]]; then
		printf -- '-'
		return 0
	fi
	r=$(($1 * 8))
	while ((i < 4)); do
		if ((r < 1000 || (r % 1000 != 0 && r < 1000000))); then break; fi
		r=$((r / 1000))
		i=$((i + 1))
	done
	printf '%d%sbit' "$r" "${units[i]}"
}

# tc_rate_arg BITS_PER_SECOND: an exact rate argument for tc.
tc_rate_arg() {
	local r=$1 i=0
	local -a units=('' K M G T)
	while ((i < 4 && r >= 1000 && r % 1000 == 0)); do
		r=$((r / 1000))
		i=$((i + 1))
	done
	printf '%d%sbit' "$r" "${units[i]}"
}

# tc_classes DEV: the HTB classes of DEV, one per line, as
# "classid parent rate ceil quantum" with rates as tc prints them. Newer
# iproute2 prints classes as JSON (rates in bytes/s); older releases (6.1
# among them) print text even with -j.
tc_classes() {
	local out rest obj h p r c q i
	local -a tok
	out=$(tc -d -j class show dev "$1" 2>&1) || {
		printf '%s\n' "$out" >&2
		return 1
	}
	if [[ $out == '['* ]]; then
		rest=$out
		while [[ $rest == *'{"class":'* ]]; do
			rest=${rest#*'{"class":'}
			obj="{\"class\":${rest%%'{"class":'*}"
			[[ $(json_value "$obj" class) == htb ]] || continue
			h=$(json_value "$obj" handle)
			p=$(json_value "$obj" parent)
			r=$(json_value "$obj" rate)
			c=$(json_value "$obj" ceil)
			q=$(json_value "$obj" quantum)
			printf '%s %s %s %s %s\n' "$h" "${p:-root}" "$(tc_rate_text "$r")" "$(tc_rate_text "$c")" "${q:--}"
		done
		return 0
	fi
	while read -ra tok; do
		[[ ${tok[0]:-} == class && ${tok[1]:-} == htb ]] || continue
		h=${tok[2]} p=- r=- c=- q=-
		for ((i = 3; i < ${#tok[@]}; i++)); do
			case ${tok[i]} in
			root) p=root ;;
			parent) p=${tok[i + 1]:--} ;;
			rate) r=${tok[i + 1]:--} ;;
			ceil) c=${tok[i + 1]:--} ;;
			quantum) q=${tok[i + 1]:--} ;;
			esac
		done
		printf '%s %s %s %s %s\n' "$h" "$p" "$r" "$c" "$q"
	done <<<"$out"
}

# tc_filters DEV: the u32 filters under 1:, one line per match, as
# "protocol pref flowid value/mask@offset". Read as text, which has not
# changed in years; u32 JSON appeared only in iproute2 5.17.
tc_filters() {
	local out proto=- pref=- flow=- i
	local -a tok
	out=$(tc filter show dev "$1" parent 1: 2>&1) || {
		printf '%s\n' "$out" >&2
		return 1
	}
	while read -ra tok; do
		if [[ ${tok[0]:-} == filter ]]; then
			proto=- pref=- flow=-
			for ((i = 1; i < ${#tok[@]}; i++)); do
				case ${tok[i]} in
				protocol) proto=${tok[i + 1]:--} ;;
				pref) pref=${tok[i + 1]:--} ;;
				flowid | '*flowid' | classid | '*classid') flow=${tok[i + 1]:--} ;;
				esac
			done
		elif [[ ${tok[0]:-} == match && $flow != - ]]; then
			printf '%s %s %s %s@%s\n' "$proto" "$pref" "$flow" "${tok[1]:-}" "${tok[3]:-}"
		fi
	done <<<"$out"
}

# u32_filter PROTO DSCP CLASSID: "protocol pref flowid value/mask@offset" of
# the filter that sends DSCP to CLASSID, as tc_filters prints it. The DSCP
# is the top six bits of the IPv4 ToS byte and of the IPv6 traffic class.
u32_filter() {
	local tos=$(($2 << 2))
	if [[ $1 == ip ]]; then
		printf 'ip 1 %s %08x/%08x@0' "$3" $((tos << 16)) $((0xfc << 16))
	else
		printf 'ipv6 2 %s %08x/%08x@0' "$3" $((tos << 20)) $((0xfc << 20))
	fi
}

u32_add() {
	local tos
	tos=$(printf '0x%02x' $(($2 << 2)))
	if ((HTB_OFFLOAD)); then
		if [[ $1 == ip ]]; then
			run tc filter add dev "$4" egress protocol ip pref 1 u32 match ip dsfield "$tos" 0xfc action skbedit priority "$3"
		else
			run tc filter add dev "$4" egress protocol ipv6 pref 2 u32 match ip6 priority "$tos" 0xfc action skbedit priority "$3"
		fi
		return 0
	fi
	if [[ $1 == ip ]]; then
		run tc filter add dev "$4" parent 1: protocol ip pref 1 u32 match ip dsfield "$tos" 0xfc flowid "$3"
	else
		run tc filter add dev "$4" parent 1: protocol ipv6 pref 2 u32 match ip6 priority "$tos" 0xfc flowid "$3"
	fi
}

# htb_class DEV CLASSID BITS_PER_SECOND: a root HTB class at that rate.
# quantum is explicit: HTB derives rate/r2q otherwise, which at these rates
# is far above its 200000 B cap (tc-htb(8); the kernel warns "quantum of
# class ... is big"). burst is 1 ms at the rate and at least 64 KiB (one GSO
# packet): tc's default, rate/HZ + MTU, rounds to 0 ticks at tens of Gbit/s,
# and the class then falls short of its rate.
htb_class() {
	local rate burst
	rate=$(tc_rate_arg "$3")
	if ((HTB_OFFLOAD)); then
		# mlx5 takes rate and ceil (to 1 Mbit/s) and refuses quantum and
		# prio (mlx5e "prio and quantum parameters are not supported by
		# device with HTB offload enabled"; sch_htb refused quantum itself
		# before Linux 6.3); burst means nothing to the NIC. The kernel
		# still reports quantum as min(rate/r2q, 200000) B, HTB_QUANTUM at
		# any rate above 16 Mbit/s, so the read-back compares as usual.
		run tc class replace dev "$1" parent 1: classid "$2" htb rate "$rate" ceil "$rate"
		return 0
	fi
	burst=$(($3 / 8 / 1000))
	if ((burst < 65536)); then burst=65536; fi
	run tc class replace dev "$1" parent 1: classid "$2" htb rate "$rate" ceil "$rate" \
		burst "$burst" cburst "$burst" quantum "$HTB_QUANTUM"
}

# HTB offload (Linux 5.12 "sch_htb: Hierarchical QoS hardware offload",
# mlx5e "Support HTB offload"): the NIC runs the HTB algorithm, so no
# qdisc lock sits over a 400G port. iproute2 enables it with
# `tc qdisc replace dev DEV root handle 1: htb offload` and prints
# "offload" (JSON "offload":null) on such a root (iproute2 "tc: Add support
# for HTB offload", tc-htb(8)). Filters on the HTB itself are not
# supported there: packets are classified in clsact egress, whose
# `action skbedit priority 1:N` names the class (tc-skbedit(8)). The kernel
# refuses the offload unless the netdev's hw-tc-offload feature is on
# (sch_htb htb_init: "hw-tc-offload ethtool feature flag must be on";
# `ethtool -K DEV hw-tc-offload on`, ethtool(8)). HTB_OFFLOAD is 1 while
# the interface being shaped has, or is being given, an offloaded tree.
HTB_OFFLOAD=0

# htb_offload_capable DEV: status 0 when DEV is an mlx5 netdev whose
# hw-tc-offload feature can be on, with HW_TC_OFFLOAD set to its state
# ("on" or "off"); otherwise status 1 with OFFLOAD_WHY saying why not.
# Detected, not assumed: the driver from sysfs, the feature from ethtool;
# whether the firmware has the QoS capability shows only when the kernel
# takes or refuses the offloaded root (htb_root).
htb_offload_capable() {
	local drv out re='(^|'$'\n'')hw-tc-offload: (on|off)( \[fixed\])?'
	HW_TC_OFFLOAD='' OFFLOAD_WHY=''
	drv=$(readlink "$SYS/class/net/$1/device/driver" 2>/dev/null) || drv=''
	drv=${drv##*/}
	if [[ $drv != mlx5_core ]]; then
		OFFLOAD_WHY="driver ${drv:-none} (HTB offload is used on mlx5 only)"
		return 1
	fi
	if ! command -v ethtool >/dev/null 2>&1; then
		OFFLOAD_WHY='ethtool is not installed, so hw-tc-offload cannot be read'
		return 1
	fi
	if ! out=$(ethtool -k "$1" 2>&1); then
		OFFLOAD_WHY="ethtool -k failed: $out"
		return 1
	fi
	if [[ ! $out =~ $re ]]; then
		OFFLOAD_WHY='ethtool -k lists no hw-tc-offload feature'
		return 1
	fi
	if [[ ${BASH_REMATCH[2]} == off && -n ${BASH_REMATCH[3]} ]]; then
		OFFLOAD_WHY='hw-tc-offload is off [fixed]'
		return 1
	fi
	HW_TC_OFFLOAD=${BASH_REMATCH[2]}
	return 0
}

# htb_root DEV DEFAULT-MINOR HAVE-KIND: replaces DEV's root with our HTB,
# offloaded when HTB_OFFLOAD says so and the kernel takes it, otherwise in
# software (HTB_OFFLOAD becomes 0 and a NOTE says why).
htb_root() {
	local out
	if [[ $3 == htb ]]; then run tc qdisc del dev "$1" root; fi
	if ((HTB_OFFLOAD)); then
		if [[ $HW_TC_OFFLOAD != on ]]; then run ethtool -K "$1" hw-tc-offload on; fi
		if ! tc_has_clsact "$1"; then run tc qdisc add dev "$1" clsact; fi
		say "  +$(shown tc qdisc replace dev "$1" root handle 1: htb offload default "$2")"
		if out=$(tc qdisc replace dev "$1" root handle 1: htb offload default "$2" 2>&1); then
			return 0
		fi
		HTB_OFFLOAD=0
		note "$1: the kernel refused the offloaded HTB (${out//$'\n'/ }); software HTB instead"
	fi
	run tc qdisc replace dev "$1" root handle 1: htb default "$2"
}

# tc_has_clsact DEV: status 0 when DEV has a clsact qdisc.
tc_has_clsact() {
	local out
	out=$(tc -j qdisc show dev "$1" clsact 2>/dev/null) || return 1
	[[ $out == *'"kind":"clsact"'* ]]
}

# tc_egress_filters DEV: the u32 filters of DEV's clsact egress hook that
# set a class with skbedit priority, one line per match, in tc_filters'
# form ("protocol pref classid value/mask@offset"): the classification of
# an offloaded HTB. A filter's matches print before its action, so they
# wait for it.
tc_egress_filters() {
	local out proto=- pref=- i m
	local -a tok matches=()
	out=$(tc filter show dev "$1" egress 2>&1) || {
		printf '%s\n' "$out" >&2
		return 1
	}
	while read -ra tok; do
		case ${tok[0]:-} in
		filter)
			matches=() proto=- pref=-
			for ((i = 1; i < ${#tok[@]}; i++)); do
				case ${tok[i]} in
				protocol) proto=${tok[i + 1]:--} ;;
				pref) pref=${tok[i + 1]:--} ;;
				esac
			done
			;;
		match) matches+=("${tok[1]:-}@${tok[3]:-}") ;;
		action)
			for ((i = 1; i < ${#tok[@]}; i++)); do
				if [[ ${tok[i]} == skbedit && ${tok[i + 1]:-} == priority ]]; then
					for m in "${matches[@]}"; do
						printf '%s %s %s %s\n' "$proto" "$pref" "${tok[i + 2]:--}" "$m"
					done
				fi
			done
			matches=()
			;;
		esac
	done <<<"$out"
}

# section_shaping shapes each interface of SHAPE_IFACES ("dev default-minor
# rest-classid fallback-bits") with its records of SHAPE_CLASSES ("dev
# classid bits/s name") and SHAPE_FILTERS ("dev protocol dscp classid").
section_shaping() {
	local iface dev deflt rest fallback c f
	local -a classes filters
	for iface in "${SHAPE_IFACES[@]}"; do
		read -r dev deflt rest fallback <<<"$iface"
		if [[ -n $ONLY_NETDEV && $dev != "$ONLY_NETDEV" ]]; then continue; fi
		classes=() filters=()
		for c in "${SHAPE_CLASSES[@]}"; do
			if [[ ${c%% *} == "$dev" ]]; then classes+=("${c#* }"); fi
		done
		for f in "${SHAPE_FILTERS[@]}"; do
			if [[ ${f%% *} == "$dev" ]]; then filters+=("${f#* }"); fi
		done
		shape_interface "$dev" "$deflt" "$rest" "$fallback" "${classes[@]}" -- "${filters[@]}"
	done
}

# filter_list LINES: tc filters, one per line, as one "; "-separated
# value for --json; "none" for none.
filter_list() {
	if [[ -z $1 ]]; then
		printf 'none'
	else
		printf '%s' "${1//$'\n'/; }"
	fi
}

# shaping_class DEV CLASSID REST-CLASSID LINE-BITS HAVE WANT: with --json,
# records an HTB class as "parent rate ceil quantum". The line-rate class's
# rate is the link's, which the settings cannot know: where it is the link
# speed, the report says "line-rate", as rocefab's desired state does.
shaping_class() {
	local hv=$5 wv=$6 lr
	((JSON)) || return 0
	if [[ $2 == "$3" ]]; then
		lr=$(tc_rate_text $(($4 / 8)))
		if [[ $hv == "$wv" ]]; then hv=${hv//$lr/line-rate}; fi
		wv=${wv//$lr/line-rate}
	fi
	setting "$1/shaping/class/$2" "$hv" "$wv"
}

# shape_interface DEV DEFAULT-CLASSID REST-CLASSID FALLBACK-BITS CLASS... -- FILTER...
#   CLASS   "classid bits/s name": a shaped class.
#   FILTER  "protocol dscp classid": where packets with that DSCP go.
# REST-CLASSID is the class at line rate for what is not shaped; the HTB
# default (DEFAULT-CLASSID, hex minor) takes every packet no filter matches,
# and always names a class that this function creates.
shape_interface() {
	local dev=$1 deflt=$2 rest=$3 fallback=$4 speed line rec cid bits proto dscp js kind handle have_def
	local -a classes=() filters=() want_classes=() want_filters=()
	local -A cur=()
	shift 4
	while (($#)) && [[ $1 != -- ]]; do
		classes+=("$1")
		shift
	done
	if (($#)); then shift; fi
	filters=("$@")

	if [[ ! -e $SYS/class/net/$dev ]]; then
		err "$dev: no such network device; shaping not configured"
		return 0
	fi
	# Line rate: the link speed (Mb/s in sysfs); unknown while the link is
	# down, when the fastest NIC speed of this server stands in for it.
	if speed=$(get "$SYS/class/net/$dev/speed") && [[ $speed =~ ^[0-9]+$ ]] && ((speed > 0)); then
		line=$((speed * 1000000))
	else
		line=$fallback
		note "$dev: link speed unknown (link down?); class $rest runs at $(tc_rate_arg "$line") until a re-run sees the link"
	fi

	for rec in "${classes[@]}"; do
		read -r cid bits _ <<<"$rec"
		want_classes+=("$cid root $(tc_rate_text $((bits / 8))) $(tc_rate_text $((bits / 8))) $HTB_QUANTUM")
	done
	want_classes+=("$rest root $(tc_rate_text $((line / 8))) $(tc_rate_text $((line / 8))) $HTB_QUANTUM")
	for rec in "${filters[@]}"; do
		read -r proto dscp cid <<<"$rec"
		want_filters+=("$(u32_filter "$proto" "$dscp" "$cid")")
	done

	if ! js=$(tc -j qdisc show dev "$dev" root 2>&1); then
		err "$dev: tc qdisc show failed: $js"
		return 0
	fi
	kind=$(json_value "$js" kind)
	handle=$(json_value "$js" handle)
	have_def=$(json_value "$js" default)
	# Offloaded where the NIC can take it (htb_offload_capable); a root the
	# kernel already offloaded stays so.
	local have_off=0 want_off=0
	if [[ $kind == htb && $handle == 1: && -n $(json_value "$js" offload) ]]; then have_off=1; fi
	if htb_offload_capable "$dev"; then
		want_off=1
	elif ((have_off)); then
		want_off=1 HW_TC_OFFLOAD=on
	else
		note "$dev: software HTB, not offloaded to the NIC: $OFFLOAD_WHY"
	fi
	HTB_OFFLOAD=$want_off
	# Classes and filters count only under our HTB root; under any other
	# root qdisc the tree is built from scratch. An offloaded root's
	# filters are in clsact egress.
	local have_classes='' have_filters=''
	if [[ $kind == htb && $handle == 1: ]]; then
		if ! have_classes=$(tc_classes "$dev"); then
			err "$dev: tc class show failed"
			return 0
		fi
		if ((have_off)); then
			if ! have_filters=$(tc_egress_filters "$dev"); then
				err "$dev: tc filter show egress failed"
				return 0
			fi
		elif ! have_filters=$(tc_filters "$dev"); then
			err "$dev: tc filter show failed"
			return 0
		fi
	fi

	# The tree is rebuilt whole when the qdisc or the set of classes is not
	# ours (an HTB qdisc cannot change its default class in place); rates
	# are changed in place; filters are replaced as a set.
	local rebuild=0 refilter=0 line_ c
	local -a fix=()
	setting "$dev/shaping/qdisc" "${kind:-none} ${handle:--} default ${have_def:--}" "htb 1: default $deflt"
	local offs=('' ' offload')
	if [[ $kind != htb || $handle != 1: || $have_def != "$deflt" || $have_off != "$want_off" ]] &&
		differ "$dev qdisc" "${kind:-none} ${handle:--} default ${have_def:--}${offs[have_off]}" "htb 1: default $deflt${offs[want_off]}"; then
		rebuild=1
	fi
	while read -r cid line_; do
		if [[ -n $cid ]]; then cur[$cid]=$line_; fi
	done <<<"$have_classes"
	for rec in "${want_classes[@]}"; do
		cid=${rec%% *}
		line_=${rec#* }
		shaping_class "$dev" "$cid" "$rest" "$line" "${cur[$cid]:-none}" "$line_"
		if [[ -z ${cur[$cid]+set} ]]; then
			if differ "$dev class $cid" none "$line_"; then fix+=("$cid"); fi
		elif [[ ${cur[$cid]} != "$line_" ]]; then
			if differ "$dev class $cid" "${cur[$cid]}" "$line_"; then
				fix+=("$cid")
				if [[ ${cur[$cid]%% *} != root ]]; then rebuild=1; fi
			fi
		fi
		unset 'cur[$cid]'
	done
	for c in "${!cur[@]}"; do
		setting "$dev/shaping/class/$c" "${cur[$c]}" - absent
		if differ "$dev class $c" "${cur[$c]}" none; then rebuild=1; fi
	done
	local hf wf
	hf=$(printf '%s\n' "$have_filters" | LC_ALL=C sort)
	wf=$(printf '%s\n' "${want_filters[@]}" | LC_ALL=C sort)
	setting "$dev/shaping/filters" "$(filter_list "$hf")" "$(filter_list "$wf")"
	if [[ $hf != "$wf" ]] &&
		differ "$dev filters" "${hf:+${hf//$'\n'/; }}${hf:-none}" "${wf//$'\n'/; }"; then
		refilter=1
	fi

	if ((rebuild)); then
		htb_root "$dev" "$deflt" "$kind"
		fix=()
		for rec in "${want_classes[@]}"; do fix+=("${rec%% *}"); done
		refilter=1
	fi
	for cid in "${fix[@]}"; do
		if [[ $cid == "$rest" ]]; then
			htb_class "$dev" "$cid" "$line"
			continue
		fi
		for rec in "${classes[@]}"; do
			read -r c bits _ <<<"$rec"
			if [[ $c == "$cid" ]]; then htb_class "$dev" "$cid" "$bits"; fi
		done
	done
	if ((refilter)); then
		if ((have_off)); then
			# Ours are prefs 1 (ip) and 2 (ipv6) of the egress hook,
			# which outlive the root qdisc.
			local -A prefs=()
			while read -r _ c _; do
				if [[ $c == [12] ]]; then prefs[$c]=1; fi
			done <<<"$have_filters"
			for c in 1 2; do
				if [[ -n ${prefs[$c]:-} ]]; then run tc filter del dev "$dev" egress pref "$c"; fi
			done
		elif ((!rebuild)) && [[ -n $have_filters ]]; then
			run tc filter del dev "$dev" parent 1:
		fi
		for rec in "${filters[@]}"; do
			read -r proto dscp cid <<<"$rec"
			u32_add "$proto" "$dscp" "$cid" "$dev"
		done
	fi
}

# ---- settings and lock -----------------------------------------------------
# The settings file is data, and the runtime reads it as data: it never
# sources or evaluates a line of it. parse_settings accepts exactly the
# lines rocefab writes: blanks, comments, `readonly KEY=VALUE` and
# `readonly -a KEY=(VALUE ...)` (on one line, or one row of values per line
# up to a line `)`), for the keys below, each value a single-quoted string
# or a number of the shape setting_shape gives. Anything else (a command, a
# `$(...)`, a backtick, a `;`, an unknown or repeated key, a value of
# another shape) stops the run with the file and line before it reads or
# changes anything on the server: whoever can append to host.conf cannot
# make the runtime run a command as root.

# The keys a settings file may leave out, each then empty: NIC_CC is
# written only for a NIC whose driver is not mlx5.
readonly OPTIONAL_KEYS='NIC_CC'

# The keys of a settings file, all of which it must hold.
readonly SETTING_KEYS='SETTINGS_FOR_RUNTIME DEVICE TOOL NETDEVS HCAS MTU TRUST DSCP2PRIO PRIO_TC TSA TCBW PFC CABLE_LEN ECN_ENABLE CNP_DSCP CNP_PRIO DCQCN_PARAMS ROCE_TOS TC_MAXRATE HTB_QUANTUM SHAPE_IFACES SHAPE_CLASSES SHAPE_FILTERS NIC_FIRMWARE'

# setting_shape KEY: sets SHAPE_ARRAY (1 for an array), SHAPE_LEN (the
# number of values the array must hold, or empty) and SHAPE_RE (the
# extended regular expression each value matches whole, quotes included,
# as renderers/host writes it). A name is the schema's name pattern, an
# interface its interface pattern (renderers.NamePattern and
# InterfacePattern). Fails for a key rocefab does not write.
setting_shape() {
	local name='[A-Za-z0-9][A-Za-z0-9._-]{0,63}' iface='[A-Za-z0-9][A-Za-z0-9._/-]{0,63}'
	local uint='(0|[1-9][0-9]{0,18})' minor='[0-9a-f]{1,2}'
	SHAPE_ARRAY=1
	SHAPE_LEN=''
	case $1 in
	SETTINGS_FOR_RUNTIME) SHAPE_ARRAY=0 SHAPE_RE="'[0-9a-f]{64}'" ;;
	DEVICE) SHAPE_ARRAY=0 SHAPE_RE="'$name'" ;;
	TOOL) SHAPE_ARRAY=0 SHAPE_RE="'(mlnx_qos|dcb)'" ;;
	TRUST) SHAPE_ARRAY=0 SHAPE_RE="'dscp'" ;;
	MTU | CABLE_LEN | ROCE_TOS | HTB_QUANTUM) SHAPE_ARRAY=0 SHAPE_RE=$uint ;;
	CNP_DSCP | CNP_PRIO) SHAPE_ARRAY=0 SHAPE_RE="(-1|$uint)" ;;
	NETDEVS) SHAPE_RE="'$iface'" ;;
	HCAS) SHAPE_RE="'($name)?'" ;;
	DSCP2PRIO) SHAPE_LEN=64 SHAPE_RE='[0-7]' ;;
	PRIO_TC) SHAPE_LEN=8 SHAPE_RE='[0-7]' ;;
	TSA) SHAPE_LEN=8 SHAPE_RE="'(ets|strict)'" ;;
	TCBW) SHAPE_LEN=8 SHAPE_RE='(100|[1-9]?[0-9])' ;;
	PFC | ECN_ENABLE) SHAPE_LEN=8 SHAPE_RE='[01]' ;;
	DCQCN_PARAMS) SHAPE_RE="'(rp|np) [a-z0-9_]{1,64} [a-z0-9_]{1,64} $uint'" ;;
	TC_MAXRATE) SHAPE_RE="'$iface( $uint){8}'" ;;
	SHAPE_IFACES) SHAPE_RE="'$iface 0x$minor 1:$minor $uint'" ;;
	SHAPE_CLASSES) SHAPE_RE="'$iface 1:$minor $uint $name'" ;;
	SHAPE_FILTERS) SHAPE_RE="'$iface (ip|ipv6) [0-9]{1,2} 1:$minor'" ;;
	NIC_FIRMWARE) SHAPE_RE="'[A-Z][A-Z0-9_]{0,63} $uint'" ;;
	NIC_CC) SHAPE_RE="'(bnxt_re|irdma) [a-z0-9_]{1,32} (0|0x[0-9a-f]{1,8}|[1-9][0-9]{0,9})'" ;;
	*) return 1 ;;
	esac
}

# excerpt S: S for an error message, shell-quoted so that no control
# character reaches the terminal, and cut to 60 bytes with its length.
excerpt() {
	local s=$1
	if ((${#s} > 60)); then
		printf '%q... (%d bytes)' "${s:0:60}" "${#s}"
	else
		printf '%q' "$s"
	fi
}

# setting_values FILE LINE KEY TEXT ROW: assigns the values TEXT holds to
# KEY, a scalar or an array of settings: values separated by one blank,
# each of KEY's shape. A ROW (a line of a multi-line array) may end with
# a comment, " # " and printable text.
setting_values() {
	local f=$1 n=$2 key=$3 text=$4 row=$5 value
	local token_re="^('[^']*'|-?[0-9]+)( (.*))?\$"
	local -n values=$key
	while [[ -n $text ]]; do
		if ((row)) && [[ $text =~ ^#\ [[:print:]]*$ ]]; then
			break
		fi
		if [[ ! $text =~ $token_re ]]; then
			die "$f:$n: $key: $(excerpt "$text") is not a value: want a single-quoted string or a number, one blank apart"
		fi
		value=${BASH_REMATCH[1]}
		text=${BASH_REMATCH[3]}
		if [[ -n ${BASH_REMATCH[2]} && -z $text ]]; then
			die "$f:$n: $key: a blank ends the line"
		fi
		if [[ ! $value =~ ^($SHAPE_RE)$ ]]; then
			die "$f:$n: $key: value $(excerpt "$value") is not one rocefab writes: want $SHAPE_RE"
		fi
		if [[ $value == \'* ]]; then
			value=${value:1:${#value}-2}
		fi
		if ((SHAPE_ARRAY)); then
			values+=("$value")
		elif [[ -v $key ]]; then
			die "$f:$n: $key takes one value"
		else
			printf -v "$key" '%s' "$value"
		fi
	done
}

# parse_settings FILE: reads the settings in FILE (see above) and assigns
# them, read-only; any line rocefab does not write stops the run.
parse_settings() {
	# Ranges such as [A-Z] in the shapes mean ASCII only in the C locale.
	local LC_ALL=C
	local f=$1 line n=0 key rest open='' array k fd
	local -A seen=()
	local scalar_re='^readonly ([A-Z][A-Z0-9_]*)=(.+)$'
	local array_re='^readonly -a ([A-Z][A-Z0-9_]*)=\((.*)$'
	if ! { exec {fd}<"$f"; } 2>/dev/null; then
		die "cannot read the settings $f"
	fi
	while IFS= read -r -u "$fd" line || [[ -n $line ]]; do
		n=$((n + 1))
		if [[ -n $open ]]; then
			if [[ $line == ')' ]]; then
				open=''
			elif [[ $line == $'\t'?* ]]; then
				setting_values "$f" "$n" "$open" "${line:1}" 1
			else
				die "$f:$n: $(excerpt "$line") inside the array $open: want a tab and its values, or ')'"
			fi
			continue
		fi
		if [[ -z $line || $line == '#'* ]]; then
			continue
		fi
		if [[ $line =~ $array_re ]]; then
			array=1
		elif [[ $line =~ $scalar_re ]]; then
			array=0
		else
			die "$f:$n: $(excerpt "$line") is not a setting: want a comment, readonly KEY=VALUE or readonly -a KEY=(VALUE ...)"
		fi
		key=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]}
		if ! setting_shape "$key"; then
			die "$f:$n: unknown setting $key: the settings are ${SETTING_KEYS// /, }"
		fi
		if [[ -n ${seen[$key]:-} ]]; then
			die "$f:$n: $key is set again (first on line ${seen[$key]})"
		fi
		seen[$key]=$n
		if ((array != SHAPE_ARRAY)); then
			if ((SHAPE_ARRAY)); then die "$f:$n: $key is an array: want readonly -a $key=(VALUE ...)"; fi
			die "$f:$n: $key is not an array: want readonly $key=VALUE"
		fi
		if ((!array)); then
			setting_values "$f" "$n" "$key" "$rest" 0
			continue
		fi
		declare -ga "$key=()"
		if [[ -z $rest ]]; then
			open=$key
		elif [[ $rest == *')' ]]; then
			setting_values "$f" "$n" "$key" "${rest%)}" 0
		else
			die "$f:$n: the array $key neither ends on its line with ')' nor continues on the next"
		fi
	done
	exec {fd}<&-
	if [[ -n $open ]]; then
		die "$f:$n: the file ends inside the array $open: want a line ')'"
	fi
	for k in $OPTIONAL_KEYS; do
		if [[ -z ${seen[$k]:-} ]]; then declare -ga "$k=()"; fi
		readonly "$k"
	done
	for k in $SETTING_KEYS; do
		if [[ -z ${seen[$k]:-} ]]; then
			die "$f: no $k setting: rocefab writes all of ${SETTING_KEYS// /, }"
		fi
		setting_shape "$k"
		local -n held=$k
		if [[ -n $SHAPE_LEN && ${#held[@]} != "$SHAPE_LEN" ]]; then
			die "$f:${seen[$k]}: $k holds ${#held[@]} values: want $SHAPE_LEN"
		fi
		unset -n held
		readonly "$k"
	done
	if ((${#HCAS[@]} != ${#NETDEVS[@]})); then
		die "$f:${seen[HCAS]}: HCAS holds ${#HCAS[@]} values and NETDEVS ${#NETDEVS[@]}: want one HCA (or '') per netdev"
	fi
}

# load_settings FILE: reads the settings written for this runtime, after
# checking that the file names this runtime's digest. A file that others
# than its owner (root, or whoever runs this) can write is refused: they
# could change what the runtime configures as root.
load_settings() {
	local f=$1 line for_digest='' meta
	local re="^readonly SETTINGS_FOR_RUNTIME='([0-9a-f]+)'\$"
	if [[ ! -f $f || ! -r $f ]]; then
		die "cannot read the settings $f: install this server's host.conf there, or name it with --settings FILE"
	fi
	if ! meta=$(stat -L -c '%u %a' -- "$f" 2>&1); then
		die "cannot read the owner and mode of $f: $meta"
	fi
	if [[ ${meta%% *} != 0 && ${meta%% *} != "$EUID" ]]; then
		die "$f belongs to uid ${meta%% *}, neither root nor this user: not read"
	fi
	if ((8#${meta#* } & 8#022)); then
		die "$f is writable by group or others (mode ${meta#* }): not read; chmod go-w $f"
	fi
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			for_digest=${BASH_REMATCH[1]}
			break
		fi
	done <"$f"
	if [[ -z $for_digest ]]; then
		die "$f has no SETTINGS_FOR_RUNTIME line: it is not rocefab host settings"
	fi
	if [[ $for_digest != "$RUNTIME_DIGEST" ]]; then
		die "$f was written for runtime ${for_digest:0:16}, and this is runtime ${RUNTIME_DIGEST:0:16}: install the rocefab-host.sh and the host.conf of one rocefab build"
	fi
	parse_settings "$f"
}

# lock: one run at a time. The unit's instances for the netdevs of a server
# start together at boot; each would otherwise read and write the NICs, tc
# and the configfs groups while another does.
lock() {
	local fd
	if ! { exec {fd}>>"$LOCK"; } 2>/dev/null && ! { exec {fd}<"$LOCK"; } 2>/dev/null; then
		die "cannot open the lock file $LOCK (run as root, or name another with ROCEFAB_LOCK)"
	fi
	if ! flock -n "$fd"; then
		say "waiting for another run to finish (flock $LOCK)"
		flock -w 900 "$fd" || die "another run still holds $LOCK after 900 s; nothing was changed"
	fi
}

# ---- main ------------------------------------------------------------------
main() {
	local s dev rec who
	local -a known=()
	if ((BASH_VERSINFO[0] < 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] < 4))); then
		die "needs bash 4.4 or later (this is $BASH_VERSION)"
	fi
	while (($#)); do
		case $1 in
		--check) CHECK=1 ;;
		--json) JSON=1 ;;
		--only | --netdev | --settings)
			(($# > 1)) || die "$1 needs a value (see --help)"
			case $1 in
			--only) ONLY=$2 ;;
			--netdev) ONLY_NETDEV=$2 ;;
			*) SETTINGS=$2 ;;
			esac
			shift
			;;
		--only=*) ONLY=${1#--only=} ;;
		--netdev=*) ONLY_NETDEV=${1#--netdev=} ;;
		--settings=*) SETTINGS=${1#--settings=} ;;
		-h | --help)
			usage
			exit 0
			;;
		*)
			usage >&2
			die "unknown argument: $1"
			;;
		esac
		shift
	done
	if ((JSON && !CHECK)); then die "--json reports a check: use it with --check"; fi
	for s in ${ONLY//,/ }; do
		[[ " $SECTIONS " == *" $s "* ]] || die "unknown section $s: the sections are ${SECTIONS// /,}"
	done

	if ((EMBEDDED_SETTINGS)); then
		if [[ -n $SETTINGS ]]; then
			die "--settings: this script carries the settings of $DEVICE; --settings is for rocefab-host.sh"
		fi
		# The optional settings (OPTIONAL_KEYS) a script may not carry.
		declare -p NIC_CC >/dev/null 2>&1 || readonly -a NIC_CC=()
	else
		load_settings "${SETTINGS:-$DEFAULT_SETTINGS}"
	fi
	if [[ $SETTINGS_FOR_RUNTIME != "$RUNTIME_DIGEST" ]]; then
		die "the settings were written for runtime ${SETTINGS_FOR_RUNTIME:0:16}, and this is runtime ${RUNTIME_DIGEST:0:16}"
	fi

	who=$DEVICE
	if [[ -n $ONLY_NETDEV ]]; then
		known=("${NETDEVS[@]}")
		for rec in "${SHAPE_IFACES[@]}"; do known+=("${rec%% *}"); done
		[[ " ${known[*]} " == *" $ONLY_NETDEV "* ]] ||
			die "--netdev $ONLY_NETDEV: $DEVICE's settings have no such RDMA netdev or shaped interface (they have: ${known[*]:-none})"
		who="$DEVICE $ONLY_NETDEV"
	fi

	if selected mtu; then need ip "the netdev MTU"; fi
	if selected qos || selected pfc; then need "$TOOL" "the NIC QoS settings"; fi
	if selected ecn; then need readlink "finding the NIC's PCI address"; fi
	if selected shaping && ((${#SHAPE_IFACES[@]})); then
		need tc "egress shaping"
		need sort "comparing tc filters"
	fi
	need flock "running one configuration at a time"
	lock

	if selected mtu || selected qos || selected ecn || selected pfc; then
		for dev in "${NETDEVS[@]}"; do
			if [[ -n $ONLY_NETDEV && $dev != "$ONLY_NETDEV" ]]; then continue; fi
			if [[ -e $SYS/class/net/$dev ]]; then
				NICS+=("$dev")
			else
				err "$dev: no such network device"
			fi
		done
	fi

	if ((CHECK)); then
		say "$who: checking against the intent (nothing is changed)"
	else
		say "$who: applying the intent"
	fi
	for s in $SECTIONS; do
		if selected "$s"; then "section_$s"; fi
	done

	if ((JSON)); then json_document; fi
	if ((errors)); then
		say "$who: $errors error(s); see the ERROR lines"
		exit 2
	fi
	if ((CHECK)); then
		if ((drifts)); then
			say "$who: $drifts difference(s) from the intent"
			exit 1
		fi
		say "$who: in sync with the intent"
		exit 0
	fi
	if ((changes)); then
		say "$who: $changes change(s) made"
	else
		say "$who: in sync with the intent, nothing changed"
	fi
}

main "$@"
