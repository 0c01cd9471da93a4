#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=900
#
# faults: RC over a bad cable, a cable pulled and plugged in again, a link that loses
# everything.  The faults are the model's own, set by the host at the job's request
# (cxlab_fault: `cxlab fault` from inside the job) on both nodes' links; node1 serves,
# node2 is the client and asks for them.
#
#   rc-loss-1pct, rc-loss-5pct, rc-dup-reorder, rc-corrupt
#       the RC part of the kverbs matrix twice (tests/e2e/kverbs: SEND of 1 B, 4097 B and
#       1 MiB, WRITE and READ of 4 KiB and 1 MiB, WRITE_WITH_IMM of 64 KiB, both atomics,
#       SRQ; every byte compared, statuses exact) over links that lose 1 % / 5 %,
#       duplicate and reorder 5 %, corrupt 2 % of the packets each way: everything arrives
#       intact and once; the requesters' hw_counters show the recoveries (local ACK
#       timeouts, NAK-PSN-sequence errors, implied NAKs), and a corrupted packet is dropped by the receiver's VCRC check (PMA
#       PortRcvErrors and SymbolErrorCounter move).  The two modules step through each
#       case together over TCP, so neither side tears its QP down while the other still
#       waits for an acknowledgement that the link lost (ibv_rc_pingpong has no such step
#       at its end: when the link loses the last ACK, the peer has already gone and the
#       retries end in retry exceeded).
#   read-loss-5pct
#       ib_read_bw over 5 % loss each way: READ requests and responses lost and requested
#       again, seen by the requester as NAK-PSN-sequence errors, implied NAKs (a response
#       beyond an unanswered READ) or local ACK timeouts (the last READ's).
#   unplug
#       the cable pulled out of node1: both ports leave ACTIVE; plugged in again, opensm
#       makes them ACTIVE again and an RC pingpong passes.
#   rc-cut
#       node1's link loses every packet: the client's RC QP ends in "transport retry
#       counter exceeded" after retry_count + 1 local ACK timeouts (ibv_rc_pingpong: 7, so
#       8 timeouts, counted in local_ack_timeout_err), none shorter than the model's 500 ms
#       floor.  Time in which the peer's QEMU did not read the cable does not count towards
#       a timeout, so a loaded host stretches the case: only the lower bound is checked
#       here; the timer itself is checked to the nanosecond by the host tests.
#   fatal
#       node2's firmware dies (health syndrome 0x1) while an RC pingpong runs and a process
#       watches the device's events: the process sees IBV_EVENT_DEVICE_FATAL, cxib recovers
#       (a new cxib_0, port ACTIVE again within 60 s), ib0 comes back and answers a ping
#       once its address is applied again, and a new RC pingpong passes.
set -u
cd "$CXLAB_RESULTS" || exit 1
# shellcheck source=lib.sh
. /cxlab/e2e/lib.sh
# shellcheck source=ipoib_lib.sh
. /cxlab/e2e/ipoib_lib.sh

e2e_setup || { E2E_SETUP_FAIL=1; echo "FAIL setup: $E2E_SETUP_REASON"; e2e_finish faults; exit 1; }
modprobe ib_umad	# perfquery

SYS=/sys/class/infiniband/$DEV/ports/1
SRV=${CXLAB_NODES%% *}
CLI=$(echo "$CXLAB_NODES" | awk '{ print $2 }')
port=$E2E_PORT
E2E_OK_RE=" iters in "

hwc() { cat "$SYS/hw_counters/$1" 2>/dev/null || echo 0; }
pma() { perfquery 2>/dev/null | sed -n "s/^$1:\.*\([0-9]*\)$/\1/p"; }

# faults_set CASE SPEC...: the client sets each SPEC ("NODE KIND ARGS") and says so; the
# server waits for that.  faults_clear CASE: the same for taking every fault off again.
faults_set() {
	local c=$1 spec ok=0
	shift
	if [ "$ROLE" = client ]; then
		for spec in "$@"; do
			# shellcheck disable=SC2086
			cxlab_fault $spec || ok=1
		done
		put_file "$c.faults" "$ok"
	else
		wait_file "$PEERDIR/$c.faults" 120 && ok=$(cat "$PEERDIR/$c.faults")
	fi
	return "$ok"
}
faults_clear() {
	faults_set "$1-clear" "$SRV clear" "$CLI clear"
}

# recovery: this node's requester recovery counters (RECOVERY), separated by spaces.
RECOVERY=(local_ack_timeout_err packet_seq_err implied_nak_seq_err)
recovery() { local n; for n in "${RECOVERY[@]}"; do printf '%s ' "$(hwc "$n")"; done; }

# bad_cable CASE TIMEOUT SPECS -- CMD...: CMD (a pair) with the faults SPECS set on both
# links ("loss 1%": each node's egress); the verdict of both tools, the recoveries seen
# (retries.txt: CASE and how far each RECOVERY counter moved).
bad_cable() {
	local c=$1 tmo=$2 specs=() t0 before after
	shift 2
	while [ "$1" != -- ]; do specs+=("$SRV $1" "$CLI $1"); shift; done
	shift
	port=$((port + 1))
	e2e_wanted "$c" || return 0
	before=$(recovery)
	if ! faults_set "$c" "${specs[@]}"; then
		e2e_result "$c" FAIL "the host did not set the faults (output.log)" 0
		faults_clear "$c"
		return
	fi
	t0=$SECONDS
	e2e_pair "$c" "$tmo" "$@" -p "$port" -- "$@" -p "$port"
	e2e_verdict_both "$c" $((SECONDS - t0))
	faults_clear "$c"
	after=$(recovery)
	echo "$c: ${RECOVERY[*]}: $before-> $after"
	paste -d' ' <(tr ' ' '\n' <<<"$before") <(tr ' ' '\n' <<<"$after") |
		awk -v c="$c" 'NF == 2 { d = d " " ($2 - $1) } END { print c d }' >>retries.txt
}

# recovered CASE WHAT: the result CASE-retries, passed if the requesters of both nodes
# counted at least one recovery in CASE; WHAT names them in the line.
recovered() {
	local n
	e2e_wanted "$1" || return 0
	read -r -a n < <(cat retries.txt "$PEERDIR/retries.txt" 2>/dev/null |
		awk -v c="$1" '$1 == c { for (i = 2; i <= 4; i++) s[i] += $i }
			END { printf "%d %d %d\n", s[2], s[3], s[4] }')
	[ "$((n[0] + n[1] + n[2]))" -gt 0 ] && r=pass || r=FAIL
	e2e_result "$1-retries" "$r" "$2: ${n[0]} local ACK timeouts, ${n[1]} NAK-PSN-sequence \
errors, ${n[2]} implied NAKs" 0
}

# kv_side -p PORT: one run of kverbs.ko over the RC cases (KV_CASES) as this node's ROLE,
# its control connection on TCP PORT; prints the module's lines, succeeds if every case
# passed.
kv_side() {
	local ko marker args out
	ko=/cxlab/modules/$(uname -r)/kverbs.ko
	marker="kverbs-faults $CXLAB_JOB $ROLE $2"
	args=(role="$ROLE" dev="$DEV" port="$2" cases="$KV_CASES" rounds=2
	      wc_timeout_ms=30000 ctl_timeout_s=60)
	[ "$ROLE" = client ] && args+=(peer="$E2E_SERVER_ADDR")
	echo "$marker" >/dev/kmsg
	insmod "$ko" "${args[@]}" || return 1
	rmmod kverbs
	out=$(dmesg | sed -n "/$marker/,\$p" | sed -n 's/^\[[ 0-9.]*\] kverbs: //p')
	printf '%s\n' "$out"
	grep -qE -- "$KV_OK_RE" <<<"$out"
}
export -f kv_side
export KV_OK_RE=" summary passed=[1-9][0-9]* failed=0 skipped=0$"
export DEV E2E_SERVER_ADDR ROLE
# Not fastreg_inv: its WRITE through the invalidated rkey ends in a remote access NAK that
# moves the responder to the error state (IBTA vol 1 ch. 9.9); when the link loses that
# NAK, the retries meet a QP in error and the requester ends in retry exceeded instead,
# which is right on a lossy link but not the status the case expects.
export KV_CASES="rc_send_1,rc_send_4097,rc_send_1048576,rc_write_4096,rc_write_1048576,\
rc_write_imm_65536,rc_read_4096,rc_read_1048576,atomic_*,srq_recv"
for d in $(modinfo -F depends "/cxlab/modules/$(uname -r)/kverbs.ko" | tr ',' ' '); do
	modprobe "$d"
done
kv=(bash -c 'kv_side "$@"' kv_side)
E2E_OK_RE=$KV_OK_RE
bad_cable rc-loss-1pct 240 "loss 1%" -- "${kv[@]}"
bad_cable rc-loss-5pct 300 "loss 5%" -- "${kv[@]}"
bad_cable rc-dup-reorder 240 "dup 5%" "reorder 5%" -- "${kv[@]}"
rcv_err0=$(pma PortRcvErrors) sym0=$(pma SymbolErrorCounter)
bad_cable rc-corrupt 240 "corrupt 2%" -- "${kv[@]}"
rcv_err1=$(pma PortRcvErrors) sym1=$(pma SymbolErrorCounter)
E2E_OK_RE= E2E_OK_RE_CLIENT='^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]'
bad_cable read-loss-5pct 300 "loss 5%" -- ib_read_bw -d "$DEV" -i 1 -F -s 65536 -n 40
E2E_OK_RE=" iters in "
unset E2E_OK_RE_CLIENT
pp=(ibv_rc_pingpong -d "$DEV" -i 1 -c -s 65536)

# the counters say what happened (both nodes have written their retries.txt by now)
put_file bad-cable.done x
wait_file "$PEERDIR/bad-cable.done" 120
recovered rc-loss-5pct "the requesters"
recovered read-loss-5pct "the READ requester"
corrupt_counted() { # the receivers' PMA counted rc-corrupt's bad packets
	e2e_wanted rc-corrupt || return 0
	if [ "$rcv_err1" -gt "$rcv_err0" ] && [ "$((sym1 - sym0))" = "$((rcv_err1 - rcv_err0))" ]
	then
		e2e_result rc-corrupt-counted pass \
			"PortRcvErrors +$((rcv_err1 - rcv_err0)), SymbolErrorCounter +$((sym1 - sym0))" 0
	else
		e2e_result rc-corrupt-counted FAIL \
			"PortRcvErrors $rcv_err0 -> $rcv_err1, SymbolErrorCounter $sym0 -> $sym1" 0
	fi
}
corrupt_counted

# ---- the cable pulled out and plugged in again ----------------------------------------
state() { cut -d' ' -f2 "$SYS/state"; }
not_active() { [ "$(state)" != ACTIVE ]; }
c=unplug
t0=$SECONDS
if faults_set "$c" "$SRV unplug"; then
	if wait_for 20 not_active; then
		e2e_result unplug-down pass "port $(state) $((SECONDS - t0)) s after the cable was pulled" \
			$((SECONDS - t0))
	else
		e2e_result unplug-down FAIL "port still $(state) 20 s after the cable was pulled" 20
	fi
	put_file unplug.seen x
	wait_file "$PEERDIR/unplug.seen" 60
	t0=$SECONDS
	faults_set "$c-back" "$SRV replug"
	if wait_for 90 port_active /sys/class/infiniband/"$DEV"; then
		e2e_result unplug-active-again pass "ACTIVE $((SECONDS - t0)) s after replug" \
			$((SECONDS - t0))
	else
		e2e_result unplug-active-again FAIL "port $(state) 90 s after replug" 90
	fi
else
	e2e_result unplug-down FAIL "the host did not pull the cable" 0
	faults_clear "$c"
fi
port=$((port + 1))
t0=$SECONDS
e2e_pair after-replug 120 "${pp[@]}" -n 20 -p "$port" -- "${pp[@]}" -n 20 -p "$port"
e2e_verdict_both after-replug $((SECONDS - t0))

# ---- a link that loses everything ------------------------------------------------------
# The server's link drops every packet once both tools are connected over TCP (they set
# up their QPs first); the client's QP runs out of retries.
c=rc-cut
port=$((port + 1))
if [ "$ROLE" = server ]; then
	# nothing comes back: the server's tool waits for a message that never arrives
	wait_file "$PEERDIR/$c.faults" 120
	timeout 30 "${pp[@]}" -n 1 -p "$port" >"$c.out" 2>&1 &
	pid=$!
	put_file "$c.ready" x
	wait_file "$PEERDIR/$c.done" 120
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	faults_clear "$c"
else
	faults_set "$c" "$SRV loss 100%"
	wait_file "$PEERDIR/$c.ready" 60
	sleep 1
	before=$(hwc local_ack_timeout_err)
	t0=$(date +%s%N)
	timeout 60 "${pp[@]}" -n 1 -p "$port" "$E2E_SERVER_ADDR" >"$c.out" 2>&1
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	timeouts=$(($(hwc local_ack_timeout_err) - before))
	put_file "$c.done" x
	faults_clear "$c"
	# ibv_rc_pingpong's retry_cnt is 7: 8 expiries, each at least the 500 ms floor
	# (over the tool's 67 ms), less 20 % for the guest's clock
	status=$(grep -o "Failed status [^(]*" "$c.out" | head -n 1)
	if [ "$rc" != 0 ] && [ "$status" = "Failed status transport retry counter exceeded " ] &&
	   [ "$timeouts" = 8 ] && awk -v s="$secs" 'BEGIN { exit !(s >= 3.2) }'; then
		e2e_result "$c" pass "retry counter exceeded after 8 ACK timeouts, $secs s" \
			"${secs%.*}"
	else
		e2e_result "$c" FAIL "rc $rc, ${status:-no status}, $timeouts ACK timeouts \
(8 expected) in $secs s: $(e2e_lasterr "$c.out")" "${secs%.*}"
	fi
fi
# A dead link also lost the SM's sweep: let the subnet settle before the next scenario.
if wait_for 90 port_active /sys/class/infiniband/"$DEV"; then
	e2e_result "$c-port-active" pass "port ACTIVE again after the dead link" 0
else
	e2e_result "$c-port-active" FAIL "port $(state) 90 s after the link came back" 90
fi

# ---- the firmware dies under traffic, and cxib recovers -------------------------------
c=fatal
ipoib_setup
if ipoib_up 60 && wait_for 30 ping -c 1 -W 1 "$PEER_IP" >/dev/null; then
	e2e_result fatal-ipoib-before pass "ib0 up, the peer answers" 0
else
	e2e_result fatal-ipoib-before FAIL "ib0 or the peer's ib0 not up" 0
fi
port=$((port + 1))
if [ "$ROLE" = client ]; then		# node2: the one that dies
	dmesg -C
	setsid timeout 120 ibv_asyncwatch -d "$DEV" >asyncwatch.txt 2>&1 </dev/null &
	wait_file "$PEERDIR/$c.ready" 60
	sleep 0.5
	timeout 60 "${pp[@]}" -n 1000000 -p "$port" "$E2E_SERVER_ADDR" >"$c.out" 2>&1 &
	pp_pid=$!
	sleep 3
	t0=$SECONDS
	cxlab_fault "$CLI" fatal 0x1 || e2e_result fatal-set FAIL "the host did not kill the firmware" 0
	if wait_for 90 bash -c "dmesg | grep -q 'recovery: device back'"; then
		back=$((SECONDS - t0))
		if wait_for 60 port_active /sys/class/infiniband/"$DEV"; then
			e2e_result fatal-recovered pass \
				"new $DEV after $back s, port ACTIVE $((SECONDS - t0)) s after the fatal error" \
				$((SECONDS - t0))
		else
			e2e_result fatal-recovered FAIL "new $DEV after $back s, port $(state) after 60 s more" \
				$((SECONDS - t0))
		fi
	else
		e2e_result fatal-recovered FAIL "not back: $(dmesg | grep cxib | tail -n 1)" $((SECONDS - t0))
	fi
	# Its device is gone (the RDMA core disassociated it): it polls a CQ nothing writes to
	# any more, as on hardware, until it is stopped.
	kill "$pp_pid" 2>/dev/null
	wait "$pp_pid"
	echo "the pingpong under the fatal error ended with $?: $(e2e_lasterr "$c.out")"
	if grep -q "IBV_EVENT_DEVICE_FATAL" asyncwatch.txt; then
		e2e_result fatal-event pass "the watching process saw IBV_EVENT_DEVICE_FATAL" 0
	else
		e2e_result fatal-event FAIL "no IBV_EVENT_DEVICE_FATAL: $(tail -n 1 asyncwatch.txt)" 0
	fi
	put_file "$c.done" x
else
	timeout 60 "${pp[@]}" -n 1000000 -p "$port" >"$c.out" 2>&1 &
	pp_pid=$!
	put_file "$c.ready" x
	wait_file "$PEERDIR/$c.done" 180
	kill "$pp_pid" 2>/dev/null
	wait "$pp_pid" 2>/dev/null
fi
meet fatal-recovered 120
if ipoib_up 60 && wait_for 30 ping -c 1 -W 1 "$PEER_IP" >/dev/null; then
	e2e_result fatal-ipoib-back pass "ib0 back, the peer answers over it" 0
else
	e2e_result fatal-ipoib-back FAIL "no answer over ib0 after the recovery" 0
fi
port=$((port + 1))
t0=$SECONDS
e2e_pair after-fatal 120 "${pp[@]}" -n 20 -p "$port" -- "${pp[@]}" -n 20 -p "$port"
e2e_verdict_both after-fatal $((SECONDS - t0))
ip link set ib0 down 2>/dev/null

e2e_finish faults
