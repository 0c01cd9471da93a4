#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=900
#
# kverbs: a traffic matrix between two nodes through the stock kernel verbs (ib_core), run
# by kverbs.ko (tests/e2e/kverbs/kverbs.c): RC SEND/RECV from 1 B to 1 MiB, RDMA WRITE,
# WRITE_WITH_IMM, RDMA READ, both atomics, SRQ, UD, UD multicast, fast registration with
# LOCAL_INV and SEND_WITH_INV, the error completions (bad lkey, bad rkey, write to a
# read-only region, RNR retry exceeded, flush after an error) and ib_drain_qp.  Data is
# checked byte for byte, statuses exactly.  node1 is the server, node2 the client; the two
# modules find each other over the management network (TCP, a kernel socket).
#
# Every node writes kverbs.log (the module's lines), results.txt (a table: case, result,
# bytes, seconds, MB/s, reason) and results.json.  The scenario fails on any FAIL, on a
# missing summary, and on a WARN/BUG in the kernel log.
#
# Host switches (scripts/cxlab passes KVERBS_* variables on):
#   KVERBS_DEVICE=rxe     run over Soft-RoCE instead of cxib: each node loads rdma_rxe and
#                         adds rxe0 on the management interface (RoCE v2, GID addressing)
#                         -- for developing the test itself, without the HCA model:
#                           KVERBS_DEVICE=rxe scripts/cxlab run kverbs
#   KVERBS_DEVICE=<name>  any other RDMA device name (default: the node's HCA, cxib_0, or
#                         mlx5_0 on a node cxlab --driver mlx5/mixed gave the stock driver)
#   KVERBS_SWAP=1         node2 is the server (interop both ways: mlx5.sh)
#   KVERBS_PARAMS="..."   more module parameters for both sides (e.g. max_size=65536
#                         wc_timeout_ms=30000 mlid=0xc001)
set -u
# shellcheck source=check.sh
. /cxlab/e2e/check.sh

ko=/cxlab/modules/$(uname -r)/kverbs.ko
mode=${KVERBS_DEVICE:-hca}
params=${KVERBS_PARAMS:-}
netif=eth0
# node1 serves, or node2 with KVERBS_SWAP=1 (interop both ways: mlx5.sh)
role=client
srv=${CXLAB_NODES%% *}
[ "${KVERBS_SWAP:-0}" = 1 ] && srv=$(echo "$CXLAB_NODES" | awk '{ print $2 }')
[ "$CXLAB_NODE" = "$srv" ] && role=server
a="CXLAB_ADDR_$srv"
server_addr=${!a:-$CXLAB_SERVER_ADDR}

check "kverbs.ko is on the share ($ko)" test -f "$ko" || exit 1

case $mode in
rxe)
	dev=rxe0
	check "modprobe rdma_rxe" modprobe rdma_rxe
	if [ ! -e "/sys/class/infiniband/$dev" ]; then
		check "rdma link add $dev type rxe netdev $netif" \
			rdma link add $dev type rxe netdev $netif
	fi
	# RoCE v2 multicast is IPv4 multicast on the management interface.
	ip route replace 224.0.0.0/4 dev $netif
	;;
hca) # the node's HCA under the driver cxlab loaded for it (--driver)
	dev=cxib_0
	[ "${CXLAB_DRIVER:-cxib}" = mlx5 ] && dev=mlx5_0
	;;
cxib | cxib_0) dev=cxib_0 ;;
*) dev=$mode ;;
esac

wait_for 10 port_active "/sys/class/infiniband/$dev"
state=$(cat "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null)
check "$dev port 1 is ACTIVE (${state:-no device})" test "$state" = "4: ACTIVE" || exit 1
rdma link show >rdma-link.txt 2>&1

for d in $(modinfo -F depends "$ko" | tr ',' ' '); do modprobe "$d"; done
marker="kverbs-scenario $CXLAB_JOB $CXLAB_NODE"
echo "$marker" >/dev/kmsg

t0=$(date +%s)
if [ $role = server ]; then
	# shellcheck disable=SC2086
	check "insmod kverbs role=server dev=$dev" insmod "$ko" role=server dev=$dev $params
else
	# shellcheck disable=SC2086
	check "insmod kverbs role=client dev=$dev peer=$server_addr" \
		insmod "$ko" role=client dev=$dev peer="$server_addr" $params
fi
echo "kverbs ran for $(($(date +%s) - t0))s"
check "rmmod kverbs" rmmod kverbs

# The module's lines of this run.
rm -f failed-cases.txt
dmesg | sed -n "/$marker/,\$p" >dmesg-run.txt
sed -n 's/^\[[ 0-9.]*\] kverbs: //p' dmesg-run.txt >kverbs.log
cat kverbs.log

# Known deviations of Soft-RoCE from the verbs semantics, accepted on rxe only (never on
# cxib): "case|why" lines.  Such a FAIL is reported as "xfail" with the reason.
known=
if [ "$mode" = rxe ]; then
	# A send with a bad lkey does not complete with IB_WC_LOC_PROT_ERR on rxe.  6.12
	# (rxe_req.c): the error path sets the WQE's status, rxe_qp_error() moves the QP to ERR
	# and the completer then flushes the whole send queue, that WQE included:
	# IB_WC_WR_FLUSH_ERR.  6.1: IB_WC_LOC_QP_OP_ERR.
	known="err_bad_lkey|rxe reports a bad lkey as WR_FLUSH_ERR (6.12) or LOC_QP_OP_ERR (6.1)"
fi

# Table and JSON from the case lines.
awk -v node="$CXLAB_NODE" -v role=$role -v dev="$dev" -v known="$known" '
BEGIN {
	nk = split(known, kl, "\n")
	for (i = 1; i <= nk; i++) { split(kl[i], kv, "|"); xf[kv[1]] = kv[2] }
}
function field(line, key,    m) {
	if (match(line, " " key "=[^ ]*")) {
		m = substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
		return m
	}
	return ""
}
function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
/ case=/ {
	c = field($0, "case"); r = field($0, "result")
	reason = ""
	if (match($0, / reason=".*"$/))
		reason = substr($0, RSTART + 9, RLENGTH - 10)
	if (r == "FAIL" && (c in xf)) {
		r = "xfail"
		reason = "known deviation: " xf[c] "; " reason
	}
	if (r == "FAIL")
		print c >"failed-cases.txt"
	cnt[r]++
	printf "%-20s %-5s %10s %10s %10s  %s\n", c, r, field($0, "bytes"),
		field($0, "seconds"), field($0, "mbps"), reason >"results.txt"
	js = js (n++ ? ",\n" : "") sprintf("    {\"case\": %s, \"result\": %s, \"bytes\": %s, " \
		"\"seconds\": %s, \"mbps\": %s, \"reason\": %s}", jstr(c), jstr(r),
		field($0, "bytes") + 0, field($0, "seconds") + 0, field($0, "mbps") + 0, jstr(reason))
}
/ summary / { p = field($0, "passed"); f = field($0, "failed"); s = field($0, "skipped") }
/ device / && / lid / { link = ($0 ~ /RoCE/) ? "RoCE" : "InfiniBand" }
END {
	printf "{\n  \"scenario\": \"kverbs\", \"node\": %s, \"role\": %s, \"device\": %s, " \
		"\"link_layer\": %s,\n  \"summary\": {\"passed\": %d, \"failed\": %d, " \
		"\"skipped\": %d, \"xfail\": %d, \"complete\": %s},\n" \
		"  \"module_summary\": {\"passed\": %d, \"failed\": %d, \"skipped\": %d},\n" \
		"  \"cases\": [\n%s\n  ]\n}\n",
		jstr(node), jstr(role), jstr(dev), jstr(link), cnt["pass"], cnt["FAIL"],
		cnt["skip"], cnt["xfail"], (p != "" ? "true" : "false"), p, f, s, js >"results.json"
}' kverbs.log
touch results.txt failed-cases.txt
echo
printf '%-20s %-5s %10s %10s %10s  %s\n' case result bytes seconds MB/s reason
cat results.txt
echo

summary=$(grep -E '^role=[a-z]+ summary ' kverbs.log | tail -n 1)
check "the matrix ran to its summary (${summary:-none})" test -n "$summary"
check "no case failed ($(tr '\n' ' ' <failed-cases.txt))" test ! -s failed-cases.txt
check "every case reported" test "$(grep -c ' case=' kverbs.log)" -ge 31

dmesg >dmesg.txt
check "no WARN/BUG/Oops/lockdep in dmesg" no_splat dmesg-run.txt

if [ "$mode" = rxe ]; then
	rdma link delete rxe0 2>/dev/null
fi
exit $fail
