#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=900
#
# pingpong: the libibverbs example programs between two nodes: ibv_rc_pingpong,
# ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong, each with -c (the receiver checks
# every payload byte) and with -c -e (completions by event: the completion channel, CQ
# arming and the completion EQ interrupt), 2 B and 64 KiB (UD: 512 B, one MTU), -n 50.
# node1 is the server, node2 the client; a case passes when both tools exit 0 with their
# "iters in" summary.  One line per case (pass/FAIL, with the failing tool's last error
# line), results.txt and results.json on each node.
#
# rc_pingpong-c-large-mr: one 160 MiB message each way (-c -n 1) in a buffer registered in
# 4 KiB pages: 40960 translation entries, more than one CREATE_MKEY carries, so cxib loads
# the table through its UMR QP.  4 KiB pages are made sure of: transparent huge pages off,
# and `ustock --fragment 64` holds every other page of 64 MiB while the tools allocate, so
# their buffers start in scattered single pages (a fresh guest otherwise gives physically
# contiguous runs, and the driver then maps in 16 KiB pages or larger).  The driver's debug
# line for the MR (dynamic debug) must show the 40960 pages; on rxe that is not checked.
#
# Host switches: E2E_DEVICE=rxe (Soft-RoCE, no HCA model), E2E_DEVICE=<dev>,
# E2E_CASES="rc_pingpong-c-s2 ..." (a subset), E2E_PP_ITERS (default 50).
#   E2E_DEVICE=rxe scripts/cxlab run pingpong
set -u
cd "$CXLAB_RESULTS" || exit 1
# The shared setup (device, rxe, GID, case lockstep, results): cxlab puts tests/e2e/lib.sh
# on the share next to the scenarios.
# shellcheck source=lib.sh
. /cxlab/e2e/lib.sh

e2e_setup || { E2E_SETUP_FAIL=1; echo "FAIL setup: $E2E_SETUP_REASON"; e2e_finish pingpong; exit 1; }

gopt=()
[ -n "$GIDX" ] && gopt=(-g "$GIDX")
# UD carries at most one MTU; the payload buffer includes the 40-byte GRH.
udsize=512
n=${E2E_PP_ITERS:-50}
port=$E2E_PORT
# Success is the tool's own summary line on both sides: "N iters in S seconds".
E2E_OK_RE=" iters in "
for t in rc uc ud srq; do
	for v in c e; do
		for sz in 2 65536; do
			size=$sz
			if [ $t = ud ]; then
				[ $sz = 2 ] || continue
				size=$udsize
			fi
			c="${t}_pingpong-$v-s$size"
			port=$((port + 1))
			e2e_wanted "$c" || continue
			opts=(-c)
			E2E_NOTE=
			if ! "ibv_${t}_pingpong" --help 2>&1 | grep -q -- '--chk'; then
				opts=()
				E2E_NOTE="ibv_${t}_pingpong has no -c: payload not checked"
			fi
			[ $v = e ] && opts+=(-e)
			cmd=("ibv_${t}_pingpong" -d "$DEV" -i 1 "${gopt[@]}" -n "$n" -s "$size" -p "$port" "${opts[@]}")
			t0=$SECONDS
			e2e_pair "$c" "$E2E_CASE_TMO" "${cmd[@]}" -- "${cmd[@]}"
			e2e_verdict_both "$c" $((SECONDS - t0))
		done
	done
done

# A user MR whose table needs the UMR QP (see above).
c=rc_pingpong-c-large-mr
large=$((160 << 20))
if e2e_wanted "$c"; then
	thp=/sys/kernel/mm/transparent_hugepage/enabled
	thp_was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $thp 2>/dev/null)
	[ -n "$thp_was" ] && echo never >$thp
	ddc=/sys/kernel/debug/dynamic_debug/control
	[ -e $ddc ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ "$DEV" = cxib_0 ] && echo 'file umem.c +p' >$ddc
	frag=
	if [ -x /cxlab/bin/ustock ]; then
		/cxlab/bin/ustock --fragment 64 >fragment.txt 2>&1 &
		frag=$!
		wait_for 5 grep -q fragmented fragment.txt
	fi
	port=$((port + 1))
	cmd=(ibv_rc_pingpong -d "$DEV" -i 1 "${gopt[@]}" -n 1 -s $large -p "$port" -c)
	t0=$SECONDS
	e2e_pair "$c" "$E2E_CASE_TMO" "${cmd[@]}" -- "${cmd[@]}"
	if e2e_verdict_both "$c" $((SECONDS - t0)) && [ "$DEV" = cxib_0 ]; then
		# "user MR 0x..: 167772160 bytes at 0x.., 40960 pages of 4096 bytes"
		if dmesg | grep -q "user MR 0x[0-9a-f]*: $large bytes at 0x[0-9a-f]*, 40960 pages of 4096 bytes"; then
			e2e_result "$c-umr" pass "the 160 MiB MR has 40960 4 KiB pages (UMR-loaded)"
		else
			e2e_result "$c-umr" FAIL "no 40960-page user MR in the driver's debug log: $(dmesg | grep 'user MR' | tail -1)"
		fi
	fi
	[ -n "$frag" ] && kill "$frag" 2>/dev/null && wait "$frag" 2>/dev/null
	[ "$DEV" = cxib_0 ] && echo 'file umem.c -p' >$ddc
	[ -n "$thp_was" ] && echo "$thp_was" >$thp
fi
e2e_finish pingpong
