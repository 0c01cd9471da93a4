#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=10800
#
# soak: the unreliable transports, the MADs and RC many times over, so that one lost
# packet in hundreds shows.  Not part of make check (it runs for about an hour); run it
# beside other work that loads the host, as CI does:
#
#   scripts/cxlab run soak                  # every part, E2E_SOAK_N=200 runs each
#   E2E_SOAK_PARTS="ud ucx" E2E_SOAK_N=50 scripts/cxlab run soak
#
# Parts (node1 serves, node2 is the client):
#   uc, ud   ibv_uc_pingpong -c -s 2 / ibv_ud_pingpong -c -s 512, -n 50: a lost message
#            hangs the pair until the case timeout; the receiver checks every byte
#   ucx      UCX's ud_mlx5 transport, ucx_perftest -t am_lat -s 8 -n 1000 (skipped without
#            ucx_perftest in the image)
#   perfquery  E2E_SOAK_PERFQUERY (2000) PMA queries from node2, alternately of node1's
#            port and of its own (a loopback MAD), each answered within perfquery's timeout
#   rc       ibv_rc_pingpong -c -s 4096 -n 50: no local ACK timeout on either node
#            (hw_counters/local_ack_timeout_err unchanged)
# and across all of it: no receive without a buffer (out_of_buffer), no sequence error,
# and the ports' PMA error counters (PortRcvErrors, PortXmitDiscards, VL15Dropped,
# SymbolErrorCounter) unchanged on both nodes.  One line per run, a table per part at the
# end (soak.txt), results.json.
set -u
cd "$CXLAB_RESULTS" || exit 1
# shellcheck source=lib.sh
. /cxlab/e2e/lib.sh

e2e_setup || { E2E_SETUP_FAIL=1; echo "FAIL setup: $E2E_SETUP_REASON"; e2e_finish soak; exit 1; }

put_file lid "$(cat /sys/class/infiniband/"$DEV"/ports/1/lid)"
modprobe ib_umad	# perfquery's MADs (no udev in the lab to load it)
N=${E2E_SOAK_N:-200}
NPQ=${E2E_SOAK_PERFQUERY:-2000}
PARTS=${E2E_SOAK_PARTS:-uc ud ucx perfquery rc}
E2E_CASE_TMO=${E2E_SOAK_TMO:-60}
HWC=/sys/class/infiniband/$DEV/ports/1/hw_counters
# counters that move when something is lost; each must end where it started
WATCH_HWC="out_of_buffer packet_seq_err implied_nak_seq_err local_ack_timeout_err req_transport_retries_exceeded"
WATCH_PMA="PortRcvErrors PortXmitDiscards VL15Dropped SymbolErrorCounter"

# counters NAME...: "name=value" for each hw counter and this port's PMA error counter
counters() {
	local c
	for c in $WATCH_HWC; do
		echo "$c=$(cat "$HWC/$c" 2>/dev/null || echo '?')"
	done
	perfquery 2>/dev/null | sed -n 's/^\([A-Za-z0-9]*\):\.*\([0-9]*\)$/\1=\2/p' |
		grep -E "^($(echo "$WATCH_PMA" | tr ' ' '|'))="
}

# moved BEFORE AFTER: the counters of two counters() outputs that differ, "name +delta"
moved() {
	join -t= <(sort "$1") <(sort "$2") |
		awk -F= '$2 != $3 { printf "%s%s %+d", sep, $1, $3 - $2; sep = ", " }'
}

tally() { # tally PART PASSED FAILED SECONDS DETAIL: one row of soak.txt
	printf '%-10s %6s %6s %7ss  %s\n' "$1" "$2" "$3" "$4" "$5" >>soak.txt
}

printf '%-10s %6s %6s %8s  %s\n' part passed failed time "counters moved (both nodes' own view)" >soak.txt
counters >cnt-start.txt
if [ "$(grep -cE "^($(echo "$WATCH_HWC $WATCH_PMA" | tr ' ' '|'))=[0-9]+$" cnt-start.txt)" = \
   "$(echo "$WATCH_HWC $WATCH_PMA" | wc -w)" ]; then
	e2e_result counters-readable pass "every watched counter read ($(paste -sd' ' cnt-start.txt))" 0
else
	e2e_result counters-readable FAIL "cannot read every watched counter: $(paste -sd' ' cnt-start.txt)" 0
fi

# pair_part PART OK_RE CMD...: N runs of CMD on both nodes (the client gets the server's
# address), each a case PART-k; the part's row in soak.txt
pair_part() {
	local part=$1 re=$2 k ok=0 bad=0 t0=$SECONDS port=$E2E_PORT
	shift 2
	counters >"cnt-$part-before.txt"
	E2E_OK_RE=$re
	for k in $(seq "$N"); do
		port=$((port + 1))
		e2e_pair "$part-$k" "$E2E_CASE_TMO" "$@" -p "$port" -- "$@" -p "$port"
		if e2e_verdict_both "$part-$k" 0; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
	done
	counters >"cnt-$part-after.txt"
	tally "$part" "$ok" "$bad" $((SECONDS - t0)) "$(moved "cnt-$part-before.txt" "cnt-$part-after.txt")"
}

for part in $PARTS; do
	case $part in
	uc) pair_part uc " iters in " ibv_uc_pingpong -d "$DEV" -i 1 -c -s 2 -n 50 ;;
	ud) pair_part ud " iters in " ibv_ud_pingpong -d "$DEV" -i 1 -c -s 512 -n 50 ;;
	rc) pair_part rc " iters in " ibv_rc_pingpong -d "$DEV" -i 1 -c -s 4096 -n 50 ;;
	ucx)
		if ! command -v ucx_perftest >/dev/null; then
			e2e_result ucx skip "ucx_perftest is not in the image" 0
			tally ucx - - 0 "skipped: no ucx_perftest"
			continue
		fi
		# the server prints no result; the client its "Final:" row
		E2E_OK_RE_CLIENT='^Final:'
		pair_part ucx "" ucx_perftest -d "$DEV:1" -x ud_mlx5 -t am_lat -s 8 -n 1000
		unset E2E_OK_RE_CLIENT
		;;
	perfquery)
		if [ "$ROLE" = server ]; then	# node2 asks; the next part starts together
			tally perfquery - - 0 "(node2 asks)"
			wait_file "$PEERDIR/perfquery.done" $((NPQ + 600))
			continue
		fi
		wait_file "$PEERDIR/lid" 60
		peer_lid=$(cat "$PEERDIR/lid" 2>/dev/null)
		ok=0 bad=0 t0=$SECONDS
		counters >cnt-perfquery-before.txt
		for k in $(seq "$NPQ"); do
			if [ $((k % 2)) = 1 ]; then
				perfquery -x "$peer_lid" 1 >pq.txt 2>&1
			else
				perfquery -x >pq.txt 2>&1
			fi && grep -q "PortXmitData" pq.txt && { ok=$((ok + 1)); continue; }
			bad=$((bad + 1))
			cp pq.txt "perfquery-$k.txt"
			cxlab_state "perfquery-$k"
			e2e_result "perfquery-$k" FAIL "$(e2e_lasterr pq.txt)" 0
		done
		counters >cnt-perfquery-after.txt
		e2e_result perfquery "$([ "$bad" = 0 ] && echo pass || echo FAIL)" \
			"$ok of $NPQ answered" $((SECONDS - t0))
		tally perfquery "$ok" "$bad" $((SECONDS - t0)) \
			"$(moved cnt-perfquery-before.txt cnt-perfquery-after.txt)"
		put_file perfquery.done x
		;;
	*) echo "FAIL unknown part '$part' (uc ud ucx perfquery rc)"; E2E_NFAIL=$((E2E_NFAIL + 1)) ;;
	esac
done

cat soak.txt
# nothing lost: every watched counter ends where it started, part by part
if grep -qE '[a-zA-Z] [+-][0-9]' soak.txt; then
	e2e_result counters FAIL "a loss counter moved: $(grep -E '[a-zA-Z] [+-][0-9]' soak.txt | head -n1)" 0
else
	e2e_result counters pass "no loss counter moved ($WATCH_HWC $WATCH_PMA)" 0
fi
e2e_finish soak
