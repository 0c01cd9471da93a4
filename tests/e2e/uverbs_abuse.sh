#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=300
#
# uverbs_abuse: what a malicious caller can send without libmlx5.  tests/e2e/uabuse sends
# hand-made mlx5 driver data through the uverbs write() ABI (bad lengths, flags, reserved
# fields, strides, counts, unmapped or too short buffers and doorbells, ...): every malformed
# request must fail with its exact errno, the well-formed ones must work, and afterwards the
# device must still work for libmlx5 (ibv_devinfo) with no WARN/BUG/Oops in the kernel log.
# Every node runs it on its own cxib_0.  The driver data is mlx5's, so E2E_DEVICE=rxe skips.
set -u
# shellcheck source=check.sh
. /cxlab/e2e/check.sh

if [ "${E2E_DEVICE:-}" = rxe ]; then
	echo "skip uverbs_abuse: mlx5 driver data, nothing to run on rxe"
	exit 77		# cxlab's SKIP_RC: counted as skipped, not passed
fi
dev=cxib_0
prog=/cxlab/bin/uabuse
out=${CXLAB_RESULTS:-/tmp}/uabuse.txt
dmesg_before=$(dmesg | wc -l)

modprobe ib_uverbs 2>/dev/null
wait_for 30 port_active /sys/class/infiniband/$dev
check "$dev port 1 ACTIVE" grep -q ACTIVE /sys/class/infiniband/$dev/ports/1/state
check "uabuse is on the share (make kmod-path builds it)" test -x "$prog"
uv=$(basename "$(ls -d /sys/class/infiniband/$dev/device/infiniband_verbs/uverbs* 2>/dev/null |
	head -1)")
check "$dev has a uverbs device" test -n "$uv" -a -c "/dev/infiniband/$uv"
if [ "$fail" = 0 ]; then
	"$prog" "/dev/infiniband/$uv" >"$out" 2>&1
	rc=$?
	grep -E '^(ok|FAIL) ' "$out" | sed 's/^/  /'
	check "uabuse exits 0 ($(tail -1 "$out"))" test "$rc" = 0
	check "uabuse ran its cases" grep -Eq '^uabuse: [1-9][0-9]* passed, 0 failed$' "$out"
fi
check "libmlx5 still opens $dev (ibv_devinfo)" bash -c "ibv_devinfo -d $dev >/dev/null"
dmesg | tail -n +$((dmesg_before + 1)) >dmesg-run.txt
check "no WARN/BUG/Oops in dmesg" no_splat dmesg-run.txt
[ "$fail" = 0 ] && echo "ok   uverbs_abuse" || echo "FAIL uverbs_abuse"
exit "$fail"
