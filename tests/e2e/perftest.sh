#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=1200
#
# perftest: the perftest programs between two nodes, short runs that fit TCG: ib_write_bw,
# ib_read_bw, ib_send_bw, ib_write_lat, ib_send_lat, ib_read_lat over RC at 2 B and 64 KiB,
# ib_atomic_bw / ib_atomic_lat (compare-and-swap and fetch-and-add, 8 B), ib_send_bw and
# ib_send_lat over UD (2 B and 512 B: one MTU), -n 100 each.  node1 runs the server, node2
# the client; a case passes when both exit 0 and the client printed its result row.
# perftest (Debian bookworm, 4.5) has no payload check of its own: payload validation is
# the pingpong scenario's (-c) and kverbs'; here the statuses, counts and the result row
# are checked.  One line per case (pass/FAIL with the failing tool's last error line),
# results.txt and results.json on each node.
#
# read_bw-rc-s1048576: 1 MiB READs (-n 20), whose responses once overran the cable's
# transmit buffer and came back only through retries.  The client (the requester) must see
# no local ACK timeout (hw_counters/local_ack_timeout_err unchanged) on cxib.
#
# Host switches: E2E_DEVICE=rxe (Soft-RoCE), E2E_DEVICE=<dev>, E2E_CASES="write_bw-rc-s2 ...",
# E2E_PT_ITERS (default 100).
#   E2E_DEVICE=rxe scripts/cxlab run perftest
set -u
cd "$CXLAB_RESULTS" || exit 1
# The shared setup (device, rxe, GID, case lockstep, results): cxlab puts tests/e2e/lib.sh
# on the share next to the scenarios.
# shellcheck source=lib.sh
. /cxlab/e2e/lib.sh

e2e_setup || { E2E_SETUP_FAIL=1; echo "FAIL setup: $E2E_SETUP_REASON"; e2e_finish perftest; exit 1; }

gopt=()
[ -n "$GIDX" ] && gopt=(-x "$GIDX")
n=${E2E_PT_ITERS:-100}
echo "perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
if ib_write_bw --help 2>&1 | grep -qiE 'data[_ -]?valid'; then
	echo "perftest mentions validation: $(ib_write_bw --help 2>&1 | grep -iE -m1 'data[_ -]?valid')"
fi
port=$E2E_PORT
# The client's result row: "<bytes> <iterations> ..." under the "#bytes" header.
E2E_OK_RE=
E2E_OK_RE_CLIENT='^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]'
cases=()
for t in write_bw read_bw send_bw write_lat send_lat read_lat; do
	for sz in 2 65536; do cases+=("$t rc $sz"); done
done
cases+=("read_bw rc 1048576")
cases+=("atomic_bw rc CMP_AND_SWAP" "atomic_bw rc FETCH_AND_ADD"
	"atomic_lat rc CMP_AND_SWAP" "atomic_lat rc FETCH_AND_ADD"
	"send_bw ud 2" "send_bw ud 512" "send_lat ud 2" "send_lat ud 512")
for spec in "${cases[@]}"; do
	read -r t conn arg <<<"$spec"
	port=$((port + 1))
	if [ "${t#atomic}" != "$t" ]; then
		c="$t-$conn-$arg"
		sopt=(-A "$arg")
	else
		c="$t-$conn-s$arg"
		sopt=(-s "$arg")
	fi
	e2e_wanted "$c" || continue
	iters=$n
	[ "$arg" = 1048576 ] && iters=20
	cmd=("ib_$t" -d "$DEV" -i 1 "${gopt[@]}" -F -p "$port" -c "${conn^^}" -n "$iters" "${sopt[@]}")
	tmo_ctr=/sys/class/infiniband/$DEV/ports/1/hw_counters/local_ack_timeout_err
	tmo_before=$(cat "$tmo_ctr" 2>/dev/null)
	t0=$SECONDS
	e2e_pair "$c" "$E2E_CASE_TMO" "${cmd[@]}" -- "${cmd[@]}"
	if e2e_verdict_both "$c" $((SECONDS - t0)) && [ "$arg" = 1048576 ] &&
	   [ "$ROLE" = client ] && [ -n "$tmo_before" ]; then
		# The bug this guards against (1 MiB READ responses dropped by the cable) cost
		# about 1.6 local ACK timeouts per read.  A healthy transport has none on a quiet
		# host; on a loaded one (two labs on two cores) a stalled responder can make an
		# ACK late enough for a few: fewer than one per four reads passes, and is said.
		tmo=$(($(cat "$tmo_ctr") - tmo_before))
		if [ "$tmo" = 0 ]; then
			e2e_result "$c-no-timeouts" pass "no local ACK timeout on the requester"
		elif [ $((tmo * 4)) -lt "$iters" ]; then
			e2e_result "$c-no-timeouts" pass "$tmo local ACK timeouts in $iters reads (late, not lost: under 1 in 4)"
		else
			e2e_result "$c-no-timeouts" FAIL "$tmo local ACK timeouts in $iters reads (responses lost)"
		fi
	fi
done
e2e_finish perftest
