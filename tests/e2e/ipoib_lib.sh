# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tests/e2e/ipoib_lib.sh: IPoIB on cxib_0 for the scenarios that need an IP address on the
# InfiniBand port (ipoib.sh, rdma_cm.sh).  Sourced from /cxlab/e2e/ipoib_lib.sh after
# sm_lib.sh (its check, wait_file).  Node N of the lab gets
#
#   198.51.100.N/24     on ib0          (RFC 5737 TEST-NET-2: a net of the lab's own)
#   2001:db8:1b::N/64   on ib0          (RFC 3849 documentation prefix)
#
# The IB link exists only between the lab's QEMU processes; nothing leaves the machine.
#
#   ipoib_start             how the IPoIB scenarios begin: exit 1 without the lab's opensm
#                           (IPoIB needs its broadcast group and PathRecords), then
#                           ipoib_setup as a check
#   ipoib_setup             ME, PEER, PEERDIR, PEER_IP, PEER_IP6, MY_IP, MY_IP6; loads
#                           ib_ipoib and rdma_ucm (no udev in the lab loads them)
#   ipoib_up [SECONDS]      configure ib0, bring it up, wait for carrier (0) or fail (1)
#   carrier_is IF 0|1       the interface's carrier is that
#   wait_carrier IF SECONDS until IF has carrier
#   meet NAME [SECONDS]     both nodes reached NAME (files NAME.here on the share)
#   ipoib_qps TYPE          how many QPs of TYPE (UD, RC) ib_ipoib holds on cxib_0
#   offload NAME            ethtool -k ib0's state of feature NAME (on / off)
#   tcp_sink PORT OUT       receive one TCP connection on PORT; OUT gets "BYTES SHA256"
#   tcp_source IP PORT MIB OUT
#                           send MIB MiB of random bytes to IP:PORT; OUT gets "BYTES SHA256"

IPOIB_NET=198.51.100
IPOIB_NET6=2001:db8:1b:
IPOIB_MODE_FILE=/sys/class/net/ib0/mode

ipoib_setup() {
	ME=$CXLAB_NODE
	PEER=$(echo "$CXLAB_NODES" | awk -v me="$ME" \
		'{ for (i = 1; i <= NF; i++) if ($i != me) { print $i; exit } }')
	PEERDIR=/cxlab/results/$CXLAB_JOB/$PEER
	local pi=1
	[ "$CXLAB_INDEX" = 1 ] && pi=2
	MY_IP=$IPOIB_NET.$CXLAB_INDEX
	MY_IP6=$IPOIB_NET6:$CXLAB_INDEX
	PEER_IP=$IPOIB_NET.$pi
	PEER_IP6=$IPOIB_NET6:$pi
	modprobe ib_ipoib && modprobe rdma_ucm
}

ipoib_start() {
	if [ "${CXLAB_SM:-}" != opensm ]; then
		echo "FAIL this scenario needs the lab's opensm (cxlab --sm opensm, the default)"
		exit 1
	fi
	check "ib_ipoib and rdma_ucm load" ipoib_setup
}

carrier_is() { [ "$(cat /sys/class/net/"$1"/carrier 2>/dev/null)" = "$2" ]; }

wait_carrier() { wait_for "$2" carrier_is "$1" 1; }

ipoib_up() {
	local t=${1:-60}
	wait_file /sys/class/net/ib0 "$t" || return 1
	ip addr replace "$MY_IP/24" dev ib0 || return 1
	ip -6 addr replace "$MY_IP6/64" dev ib0 nodad || return 1
	ip link set ib0 up || return 1
	wait_carrier ib0 "$t"
}

meet() {
	touch "$1.here"
	wait_file "$PEERDIR/$1.here" "${2:-120}"
}

offload() {
	ethtool -k ib0 | awk -v f="$1:" '$1 == f { print $2 }'
}

tcp_sink() {
	python3 - "$1" "$2" <<'PY'
import hashlib, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", int(sys.argv[1])))
s.listen(1)
s.settimeout(120)
c, _ = s.accept()
c.settimeout(120)
h, n = hashlib.sha256(), 0
while True:
    b = c.recv(1 << 20)
    if not b:
        break
    h.update(b)
    n += len(b)
open(sys.argv[2], "w").write(f"{n} {h.hexdigest()}\n")
PY
}

tcp_source() {
	python3 - "$@" <<'PY'
import hashlib, os, socket, sys
host, port, mib, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
c = socket.create_connection((host, port), timeout=120)
h, n = hashlib.sha256(), 0
for _ in range(mib):
    b = os.urandom(1 << 20)
    c.sendall(b)
    h.update(b)
    n += len(b)
c.shutdown(socket.SHUT_WR)
c.recv(1)  # the receiver's close
c.close()
open(out, "w").write(f"{n} {h.hexdigest()}\n")
PY
}

ipoib_qps() {
	rdma res show qp 2>/dev/null | grep -c "type $1 .*comm \[ib_ipoib\]"
}
