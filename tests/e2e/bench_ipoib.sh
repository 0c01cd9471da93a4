# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# One row of `cxlab bench --ipoib` on node1 (server) and node2 (client), sourced by the job
# script scripts/lib/cxlab/netbench.py writes: it sets TEST (tcp_bw | ping_rtt), PATHNAME
# (ipoib-datagram, ipoib-datagram-nooffload, ipoib-connected, virtio-net), SECS (iperf3's
# seconds), COUNT (pings), NET (ib0's /24), SERVER and CLIENT (node names), then sources
# this file from /cxlab/e2e/.  Not a scenario (no #! line).  BENCH-* lines are what the
# bench parses; the client's iperf3 JSON or ping summary is its number.
set -u
# shellcheck source=check.sh
. /cxlab/e2e/check.sh
# shellcheck source=ipoib_lib.sh
. /cxlab/e2e/ipoib_lib.sh	# wait_carrier
ROLE=client; [ "$CXLAB_NODE" = "$SERVER" ] && ROLE=server
SDIR=/cxlab/results/$CXLAB_JOB/$SERVER
fail() { echo "BENCH-ERROR: $*"; put_file "$ROLE.state" "failed: $*"; exit 3; }
listening() { ss -ltn | grep -q ":$1 "; }

modprobe ib_ipoib 2>err.txt || fail "modprobe ib_ipoib: $(head -n1 err.txt)"
wait_file /sys/class/net/ib0 10 || fail "no ib0 after loading ib_ipoib"
mode=datagram mtu=2044 offl=on
[ "$PATHNAME" = ipoib-connected ] && mode=connected mtu=65520
[ "$PATHNAME" = ipoib-datagram-nooffload ] && offl=off
ip link set ib0 up
if [ "$(cat /sys/class/net/ib0/mode)" != $mode ]; then
	echo $mode >/sys/class/net/ib0/mode || fail "cannot set ib0 to $mode mode"
fi
ip link set ib0 mtu $mtu || fail "ib0 refuses MTU $mtu"
# connected mode masks checksum offload and TSO itself; datagram rows set them explicitly
ethtool -K ib0 tx $offl rx $offl tso $offl 2>err.txt || fail "ethtool -K ib0: $(head -n1 err.txt)"
ip addr replace "$NET.$CXLAB_INDEX/24" dev ib0
wait_carrier ib0 60 || fail "ib0 has no carrier (is the SM up?)"
dst=$NET.1
[ "$PATHNAME" = virtio-net ] && dst=$CXLAB_SERVER_ADDR
echo "BENCH-INFO: path=$PATHNAME dst=$dst ib0_mode=$(cat /sys/class/net/ib0/mode)" \
	"tso=$(ethtool -k ib0 | awk '$1 == "tcp-segmentation-offload:" { print $2 }')"
if [ "$ROLE" = server ]; then
	[ "$TEST" = tcp_bw ] || { put_file server.state ready; exit 0; }
	timeout $((SECS + 60)) iperf3 -s -1 -p 5209 >iperf.txt 2>&1 &
	pid=$!
	wait_for 10 listening 5209
	put_file server.state ready
	wait $pid
	exit $?
fi
wait_file "$SDIR/server.state" 60
s=$(cat "$SDIR/server.state" 2>/dev/null)
[ "$s" = ready ] || fail "server side: ${s:-did not start}"
ping -c 3 -W 5 "$dst" >/dev/null 2>&1  # resolve the neighbour (and ib0's path) first
if [ "$TEST" = tcp_bw ]; then
	timeout $((SECS + 30)) iperf3 -c "$dst" -p 5209 -t "$SECS" -J
else
	ping -c "$COUNT" -i 0.05 -W 5 "$dst"
fi
