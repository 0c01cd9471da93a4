#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=900
#
# uverbs_neg: error paths of the userspace verbs, surfaced to the application with the
# right status, using the stock perftest programs only (the guest has no compiler):
#   rem_access_err      an ib_write_bw client against an ib_send_bw server: the server's
#                       buffer is registered without IBV_ACCESS_REMOTE_WRITE, so the
#                       client's RDMA WRITE must complete with IBV_WC_REM_ACCESS_ERR
#                       (perftest: "Failed status 10")
#   rem_inv_req         an ib_read_bw client against an ib_send_bw server: neither the
#                       server's QP nor its buffer allows RDMA READ (no
#                       IBV_ACCESS_REMOTE_READ), so the responder NAKs the request.  Which
#                       NAK is the responder's choice (IBTA Vol 1 ch. 9): rxe checks the
#                       QP's access flags first and NAKs "invalid request"
#                       (IBV_WC_REM_INV_REQ_ERR, "Failed status 9"); cxib's model checks
#                       the access rights with the R_Key and NAKs "remote access error"
#                       (IBV_WC_REM_ACCESS_ERR, "Failed status 10").  Each device is held
#                       to its own status exactly.
#   peer_killed         the server's ib_write_bw is killed (SIGKILL) mid-transfer: its QP
#                       is destroyed by the kernel with the process, and the dead process
#                       leaves no QP behind (rdma res); peer_killed-peer: the client's
#                       writes must end in IBV_WC_RETRY_EXC_ERR ("Failed status 12").  On
#                       rxe the client's QP stays in RTS forever (no retry exhaustion):
#                       xfail there, with the QP state, never on another device
#   peer_killed-rmmod   then the driver is unloaded on the killed node (cxib: rmmod cxib;
#                       rxe: rdma link delete + rmmod rdma_rxe) within 30 s, reloaded, and
#                       its port comes back ACTIVE
#   client_killed       the client's ib_send_bw is killed with send WRs outstanding (its QP
#                       destroyed with outstanding WRs), no QP left;
#   client_killed-rmmod and the driver unloaded right after, reloaded, port ACTIVE again;
#   client_killed-peer  the server is stopped (perftest has no way to notice)
#   stock_lib           what the stock libibverbs + libmlx5 do on their own:
#                       tests/e2e/ustock on each node's own device (loopback): QPs and SRQs
#                       of a parent domain whose alloc/free callbacks give the queue
#                       buffers and doorbell records (at the alignment libmlx5 asks for,
#                       exactly that, and only 64 bytes), MLX_*_ALLOC_TYPE=PREFER_HUGE,
#                       mlx5dv_devx_alloc_uar() answering a UAR or EOPNOTSUPP; each followed
#                       by UD traffic with the payload compared, in one process (no crash).
#                       Skips without /cxlab/bin/ustock (built only where the host has
#                       libibverbs-dev; cxlab copies build/ustock/ustock), or on rxe
# A bad rkey proper (an rkey that names no MR) needs a program that posts its own WRs;
# perftest always uses the peer's real rkey.  kverbs covers it for kernel verbs
# (IB_WC_REM_ACCESS_ERR); for userspace it needs a helper built against libibverbs (the
# host has no libibverbs-dev).
#
# Host switches: E2E_DEVICE=rxe (Soft-RoCE), E2E_DEVICE=<dev>, E2E_CASES="...".
#   E2E_DEVICE=rxe scripts/cxlab run uverbs_neg
set -u
cd "$CXLAB_RESULTS" || exit 1
# The shared setup (device, rxe, GID, case lockstep, results): cxlab puts tests/e2e/lib.sh
# on the share next to the scenarios.
# shellcheck source=lib.sh
. /cxlab/e2e/lib.sh
# qps_of_tool_gone TOOL: no QP of ib_TOOL left (what is left stays in $left)
qps_of_tool_gone() {
	left=$(rdma res show qp 2>/dev/null | grep "comm ib_$1")
	[ -z "$left" ]
}

e2e_setup || { E2E_SETUP_FAIL=1; echo "FAIL setup: $E2E_SETUP_REASON"; e2e_finish uverbs_neg; exit 1; }
port=$E2E_PORT
set_gopt() { gopt=(); [ -z "$GIDX" ] || gopt=(-x "$GIDX"); }

# The client's verdict, shared with the server through the client's <case>.verdict file so
# both nodes print the same line.
verdict_client() { # CASE SECONDS: from $c.rc / $c.out on the client
	local c=$1 secs=$2 rc
	rc=$(cat "$CDIR/$c.rc" 2>/dev/null)
	if [ "$ROLE" = client ]; then
		if [ "$rc" != 0 ] && grep -qE -- "$E2E_WANT" "$c.out"; then
			put_file "$c.verdict" "pass|client saw IBV_WC_$want_name: $(grep -E -m1 -- "$E2E_WANT" "$c.out" | tr -s ' ' | cut -c1-100)"
		elif [ "$rc" = 0 ]; then
			put_file "$c.verdict" "FAIL|client exit 0, expected /$E2E_WANT/: $(e2e_lasterr "$c.out")"
		else
			got=$(grep -m1 'Failed status' "$c.out" | tr -s ' ')
			put_file "$c.verdict" "FAIL|client $(e2e_rcword "$rc"), expected /$E2E_WANT/, got: ${got:-$(e2e_lasterr "$c.out")}"
		fi
	fi
	if wait_file "$CDIR/$c.verdict" 60; then
		IFS='|' read -r r why <"$CDIR/$c.verdict"
		e2e_result "$c" "$r" "$why" "$secs"
	else
		e2e_result "$c" FAIL "no verdict from the client" "$secs"
	fi
}

# --- stock_lib: the stock libmlx5's own allocations and dv calls, on this node's device ---
if e2e_wanted stock_lib; then
	t0=$SECONDS
	if [ "${DEV#cxib}" = "$DEV" ]; then
		e2e_result stock_lib skip "libmlx5 cases, $DEV is not cxib" 0
	elif [ ! -x /cxlab/bin/ustock ]; then
		e2e_result stock_lib skip "no /cxlab/bin/ustock (make kmod-path builds build/ustock/ustock with libibverbs-dev; cxlab copies it)" 0
	else
		timeout 60 /cxlab/bin/ustock "$DEV" >stock_lib.out 2>&1
		rc=$?
		if [ "$rc" = 0 ] && grep -Eq '^ustock: [1-9][0-9]* passed, 0 failed$' stock_lib.out; then
			e2e_result stock_lib pass "$(tail -n 1 stock_lib.out)" $((SECONDS - t0))
		else
			why=$(e2e_rcword "$rc")
			[ "$rc" -gt 128 ] && [ "$rc" != 137 ] && why="killed by signal $((rc - 128))"
			e2e_result stock_lib FAIL "ustock $why: $(grep -m 3 '^FAIL' stock_lib.out | tr -s ' ' | tr '\n' ';' | cut -c1-200)" $((SECONDS - t0))
		fi
	fi
fi

# --- remote access error: an RDMA op against a buffer registered without that right ---
if [ "${E2E_DEVICE:-}" = rxe ]; then
	read_denied_status=9 read_denied_name=REM_INV_REQ_ERR
else
	read_denied_status=10 read_denied_name=REM_ACCESS_ERR
fi
for spec in "rem_access_err write_bw send_bw 10 REM_ACCESS_ERR" \
	"rem_inv_req read_bw send_bw $read_denied_status $read_denied_name"; do
	read -r cn ct st want_status want_name <<<"$spec"
	port=$((port + 1))
	c="$cn-${ct%_bw}"
	e2e_wanted "$c" || continue
	t0=$SECONDS
	set_gopt
	scmd=("ib_$st" -d "$DEV" -i 1 "${gopt[@]}" -F -p "$port" -n 20 -s 64)
	ccmd=("ib_$ct" -d "$DEV" -i 1 "${gopt[@]}" -F -p "$port" -n 20 -s 64)
	E2E_OK_RE=
	E2E_WANT="Failed status $want_status:"
	E2E_CASE_TMO=60 e2e_pair "$c" 60 "${scmd[@]}" -- "${ccmd[@]}"
	verdict_client "$c" $((SECONDS - t0))
done

# --- driver unload and reload on this node ---
reload_driver() { # CASE: unload within 30 s, load, port ACTIVE, libibverbs sees it
	local c=$1 t0=$SECONDS
	if [ "$E2E_MODE" = rxe ]; then
		rdma link delete rxe0 >"$c.out" 2>&1
		timeout 30 modprobe -r rdma_rxe >>"$c.out" 2>&1
	else
		timeout 30 rmmod "${DEV%%_*}" >"$c.out" 2>&1
	fi
	local rc=$?
	if [ $rc != 0 ]; then
		e2e_result "$c" FAIL "unload $(e2e_rcword $rc): $(e2e_lasterr "$c.out")" $((SECONDS - t0))
		return 1
	fi
	if [ "$E2E_MODE" != rxe ] && [ "$DEV" = cxib_0 ]; then
		modprobe cxib >>"$c.out" 2>&1
	fi
	if ! e2e_setup >>"$c.out" 2>&1; then
		e2e_result "$c" FAIL "after reload: $E2E_SETUP_REASON" $((SECONDS - t0))
		return 1
	fi
	e2e_result "$c" pass "unloaded, reloaded, $DEV ACTIVE" $((SECONDS - t0))
}

# Kill VICTIM's tool mid-transfer.  Both start a long run; the victim kills its tool
# (SIGKILL) 6 s after the other side's tool started, then checks that no QP of the dead
# process is left and unloads the driver.
kill_case() { # CASE VICTIM(server|client) TOOL WANT
	local c=$1 victim=$2 tool=$3 want=$4 t0=$SECONDS pid cmd rc left
	set_gopt
	cmd=("ib_$tool" -d "$DEV" -i 1 "${gopt[@]}" -F -p "$port" -n 1000000 -s 4096)
	rm -f "$c".*
	if [ "$ROLE" = server ]; then
		timeout --kill-after=5 120 stdbuf -oL -eL "${cmd[@]}" >"$c.out" 2>&1 </dev/null &
		pid=$!
		sleep 0.5
		put_file "$c.ready" started
		wait_file "$CDIR/$c.started" 90
	else
		wait_file "$SDIR/$c.ready" 90
		sleep 1
		timeout --kill-after=5 120 stdbuf -oL -eL "${cmd[@]}" "$CXLAB_SERVER_ADDR" >"$c.out" 2>&1 </dev/null &
		pid=$!
		put_file "$c.started" started
	fi
	if [ "$ROLE" = "$victim" ]; then
		sleep 6
		if kill -0 $pid 2>/dev/null; then
			# The tool runs under timeout(1): kill the tool itself (timeout then exits).
			pkill -KILL -P $pid
			sleep 1
			kill -0 $pid 2>/dev/null && kill -KILL $pid 2>/dev/null
			echo killed >"$c.killed"
		else
			echo "ended before it was killed" >"$c.killed"
		fi
		{ wait $pid; } 2>/dev/null
		rc=$?
		left=
		WAIT_POLL=0.5 wait_for 10 qps_of_tool_gone "$tool"
		if [ "$(cat "$c.killed")" != killed ]; then
			e2e_result "$c" FAIL "victim: $(e2e_lasterr "$c.out") ($(cat "$c.killed"))" $((SECONDS - t0))
		elif [ -n "$left" ]; then
			e2e_result "$c" FAIL "QP of the killed process left: $left" $((SECONDS - t0))
		else
			e2e_result "$c" pass "killed mid-transfer, its QPs are gone" $((SECONDS - t0))
		fi
		put_file "$c.rc" "$rc"
		reload_driver "$c-rmmod"
		put_file "$c.done" finished
	else
		# The survivor: its tool must end with WANT (or, if it cannot notice, be stopped).
		# Retries run out in well under a second (perftest: timeout 14, retry_cnt 7).
		end=$((SECONDS + 40))
		while kill -0 $pid 2>/dev/null && [ $SECONDS -lt $end ]; do
			[ -n "$want" ] || { [ -s "$PEERDIR/$c.done" ] && break; }
			[ $((SECONDS % 5)) = 0 ] &&
				echo "t=$((SECONDS - t0))s $(rdma res show qp 2>/dev/null | grep "comm ib_$tool")" >>"$c.qps"
			sleep 0.5
		done
		if kill -0 $pid 2>/dev/null; then
			pkill -TERM -P $pid
			kill $pid 2>/dev/null
		fi
		{ wait $pid; } 2>/dev/null
		rc=$?
		put_file "$c.rc" "$rc"
		if [ -z "$want" ]; then
			e2e_result "$c-peer" pass "survivor stopped ($(e2e_rcword $rc)): nothing to report" $((SECONDS - t0))
		elif [ "$rc" != 0 ] && grep -qE -- "$want" "$c.out"; then
			e2e_result "$c-peer" pass "survivor saw $(grep -E -m1 -- "$want" "$c.out" | tr -s ' ' | cut -c1-100)" $((SECONDS - t0))
		elif [ "$E2E_MODE" = rxe ] && [ "$c" = peer_killed ]; then
			# Soft-RoCE (6.12) does not end a transfer to a vanished peer: the QP stays in
			# RTS with its send PSN frozen (see $c.qps), no IBV_WC_RETRY_EXC_ERR ever comes.
			e2e_result "$c-peer" xfail "known deviation: rxe never reports RETRY_EXC_ERR, the QP stays RTS ($(tail -n 1 "$c.qps" | grep -o ' state [A-Z]*' | head -n 1 | sed 's/^ //' || echo 'no QP')); survivor $(e2e_rcword "$rc")" $((SECONDS - t0))
		else
			e2e_result "$c-peer" FAIL "survivor $(e2e_rcword "$rc"), expected /$want/: $(e2e_lasterr "$c.out")" $((SECONDS - t0))
		fi
		wait_file "$PEERDIR/$c.done" 120
	fi
}

port=$((port + 1))
e2e_wanted peer_killed && kill_case peer_killed server write_bw 'Failed status 12|[Rr]etry'
port=$((port + 1))
e2e_wanted client_killed && kill_case client_killed client send_bw ''
e2e_finish uverbs_neg
