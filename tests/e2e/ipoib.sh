#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=600
#
# IPoIB through the stock ib_ipoib on cxib_0, under the lab's opensm (which creates the
# broadcast groups IPoIB joins and answers its PathRecord queries):
#
#   datagram   carrier after the broadcast join; ARP entry with the 20-byte hardware
#              address; IPv4 ping, a 2000-packet flood ping without loss, the largest
#              unfragmented ping (UD MTU) and one byte more refused; IPv6 ping; iperf3 TCP
#              both ways and UDP; an MTU change; down/up
#   offloads   checksum offload and TSO on: 16 MiB over TCP arrives whole and the device did
#              the segmenting (node1 receives more packets than node2 sent); ethtool -K off:
#              whole again, one packet each
#   connected  mode switch, MTU 65520, 60000-byte pings, iperf3 TCP with 64 streams, back
#              to datagram with no RC QP left
#   partition  opensm restarted with partitions.conf: ib0.8001 (both nodes members) carries
#              traffic; ib0.8002 (node1 only) has carrier on node1 and none on node2
#   reload     rmmod cxib on node2 with ib0 up and iperf3 running; modprobe brings ib0
#              back; the scenario re-applies the address; the SM makes the port ACTIVE
#              again and the peer answers ping within 30 s
#
# Every iperf3 run must move more than E2E_IPOIB_MIN_BYTES (default 1 MB in its 4 s): a
# floor that shows data moved, not a throughput figure.  make check-e2e-debug lowers it to
# 100 kB: its KASAN guests run several times slower, and an IPoIB receiver that cannot
# keep up drops UDP datagrams (UD has no flow control), counted in out_of_buffer.
#
# node1 (the SM node) serves, node2 is the client; they meet through files on the share.
set -u
. /cxlab/e2e/sm_lib.sh
. /cxlab/e2e/ipoib_lib.sh

ipoib_start
srv=${CXLAB_NODES%% *}
min_bytes=${E2E_IPOIB_MIN_BYTES:-1000000}
p=/sys/class/infiniband/cxib_0/ports/1
guid=$(cut -d: -f5- $p/gids/0 | tr -d :)

# ---- datagram mode ---------------------------------------------------------------------------
check "ib0 up with carrier (broadcast group joined)" ipoib_up 60
check "ib0 in datagram mode" test "$(cat $IPOIB_MODE_FILE)" = datagram
mtu=$(cat /sys/class/net/ib0/mtu)
check "ib0 MTU is the broadcast group's 2048 less the 4-byte header ($mtu)" test "$mtu" = 2044
meet dg
check "ping $PEER_IP" ping -c 3 -W 5 "$PEER_IP"
lladdr=$(ip neigh show "$PEER_IP" dev ib0 | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
check "ARP entry of $PEER_IP has a 20-byte address ($lladdr)" \
	test "$(echo "$lladdr" | tr ':' '\n' | grep -c .)" = 20
# No loss, counted by the kernel rather than by ping: ping stops waiting 2 RTTs after its last
# request, so a guest stalled by TCG at the end of the flood leaves replies ping calls lost
# (once 9 of 2000 with a 411 ms RTT) that arrive all the same.  Every request must have its
# reply (IPv4 Icmp InEchoReps; the peer's flood at us brings it requests, not replies).
echo_reps() { awk '$1 == "Icmp:" { if (!c) { for (i = 2; i <= NF; i++) if ($i == "InEchoReps") c = i } else print $c }' /proc/net/snmp; }
echo_reps_reach() { [ "$(echo_reps)" -ge "$1" ]; }
flood() {
	local want=$(($(echo_reps) + 2000))
	ping -f -c 2000 -W 5 "$PEER_IP" >flood.txt 2>&1
	wait_for 30 echo_reps_reach $want || { echo "$((want - $(echo_reps))) replies missing"; return 1; }
}
check "ping -f -c 2000 $PEER_IP: every request answered" flood
echo "     flood ping: $(grep -o '[0-9]* received.*loss' flood.txt) (as ping saw it)"
check "ping -s $((mtu - 28)) -M do (the UD MTU)" ping -c 2 -W 5 -s $((mtu - 28)) -M do "$PEER_IP"
check "ping -s $((mtu - 27)) -M do is refused (over the MTU)" \
	bash -c "! ping -c 1 -W 2 -s $((mtu - 27)) -M do $PEER_IP >/dev/null 2>&1"
check "ping -6 $PEER_IP6" ping -6 -c 3 -W 5 "$PEER_IP6"
check "ping -s 8000 (fragmented)" ping -c 2 -W 5 -s 8000 "$PEER_IP"
meet dg_pings

iperf_srv() { # iperf_srv NAME: one-shot iperf3 server on node1
	timeout 90 iperf3 -s -1 -p 5201 >"$1.srv.txt" 2>&1 &
	wait_for 10 tcp_listening 5201
	touch "$1.ready"
}
iperf_cli() { # iperf_cli NAME ARGS...: node2's client once node1's server is ready
	local n=$1
	shift
	wait_file "$PEERDIR/$n.ready" 60 && timeout 60 iperf3 -c "$PEER_IP" -p 5201 "$@" >"$n.txt" 2>&1
}
sent_rcvd() { # the bytes the receiver got, from an iperf3 -J report (UDP: sent less lost)
	python3 - "$1" <<'PY'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
if "sum_received" in end:
    print(int(end["sum_received"]["bytes"]))
else:
    s = end["sum"]
    print(int(s["bytes"] * (100.0 - s.get("lost_percent", 0.0)) / 100.0))
PY
}
for t in tcp tcp_rev udp; do
	case $t in
	tcp) args="-t 4" ;;
	tcp_rev) args="-t 4 -R" ;;
	udp) args="-t 4 -u -b 20M" ;;
	esac
	if [ "$CXLAB_NODE" = "$srv" ]; then
		iperf_srv dg_$t
		wait $!
	else
		# shellcheck disable=SC2086
		check "iperf3 $args over ib0 (datagram)" iperf_cli dg_$t $args -J
		b=$(sent_rcvd dg_$t.txt 2>/dev/null || echo 0)
		echo "iperf3 $args: $b bytes received"
		check "iperf3 $args moved data ($b bytes)" test "${b:-0}" -gt "$min_bytes"
	fi
	meet dg_$t
done
check "ip link set ib0 mtu 1500" ip link set ib0 mtu 1500
check "ping -s 1472 -M do at MTU 1500" ping -c 2 -W 5 -s 1472 -M do "$PEER_IP"
ip link set ib0 mtu "$mtu"
meet dg_mtu
check "ib0 down" ip link set ib0 down
check "operstate down while down" test "$(cat /sys/class/net/ib0/operstate)" = down
check "ib0 up again with carrier" ipoib_up 60
meet dg_downup
check "ping after down/up" ping -c 3 -W 5 "$PEER_IP"
meet dg_downup_done

# ---- datagram offloads -------------------------------------------------------------------------
# The device fills in the IP and TCP checksums and cuts TCP into MSS-sized packets
# (IB_DEVICE_UD_IP_CSUM, IBK_UD_TSO): with TSO, node2 hands ib0 fewer and larger packets than
# node1 receives; without, one each.  The same 16 MiB transfer, sha256-compared, both ways.
check "ib0 has checksum offload and TSO (tx-checksum-ipv4, rx-checksumming, TSO on)" \
	test "$(offload tx-checksum-ipv4) $(offload rx-checksumming) $(offload tcp-segmentation-offload)" = "on on on"
ifcount() { cat /sys/class/net/ib0/statistics/"$1"; }
same_bytes() { # same_bytes SINK SOURCE BYTES: both say "BYTES SHA256", the same
	[ -s "$1" ] && [ "$(cat "$1")" = "$(cat "$2")" ] && [ "$(cut -d' ' -f1 "$1")" = "$3" ]
}
for o in on off; do
	check "ethtool -K ib0 tx $o rx $o tso $o" ethtool -K ib0 tx $o rx $o tso $o
	meet ofl_$o
	if [ "$CXLAB_NODE" = "$srv" ]; then
		rx0=$(ifcount rx_packets)
		tcp_sink 5301 ofl_$o.sink &
		pid=$!
		wait_for 10 tcp_listening 5301
		touch ofl_$o.ready
		wait $pid
		rx=$(($(ifcount rx_packets) - rx0))
		wait_file "$PEERDIR/ofl_$o.tx" 60
		check "16 MiB TCP, offloads $o: node2's bytes arrived whole (count, sha256)" \
			same_bytes ofl_$o.sink "$PEERDIR/ofl_$o.src" $((16 << 20))
		tx=$(cat "$PEERDIR/ofl_$o.tx" 2>/dev/null || echo 0)
		echo "offloads $o: node2 sent $tx packets into ib0, node1 received $rx"
		if [ $o = on ]; then
			check "TSO: the device segmented ($rx received >= 2 x $tx sent)" \
				test "$rx" -ge $((2 * tx))
		else
			check "no TSO: one packet per packet ($rx received <= 1.5 x $tx sent)" \
				test $((2 * rx)) -le $((3 * tx))
		fi
	else
		wait_file "$PEERDIR/ofl_$o.ready" 60
		tx0=$(ifcount tx_packets)
		check "16 MiB TCP over ib0, offloads $o" tcp_source "$PEER_IP" 5301 16 ofl_$o.src
		echo $(($(ifcount tx_packets) - tx0)) >ofl_$o.tx
	fi
	meet ofl_${o}_done
done
check "ethtool -K ib0 tx on rx on tso on" ethtool -K ib0 tx on rx on tso on
meet dg_end

# ---- connected mode ----------------------------------------------------------------------------
check "echo connected > mode" bash -c "echo connected >$IPOIB_MODE_FILE"
check "mode reads connected" test "$(cat $IPOIB_MODE_FILE)" = connected
check "MTU 65520" ip link set ib0 mtu 65520
check "connected mode turns checksum offload and TSO off" \
	test "$(offload tx-checksum-ipv4) $(offload tcp-segmentation-offload)" = "off off"
meet cm
check "ping -s 60000 in connected mode" ping -c 3 -W 5 -s 60000 "$PEER_IP"
check "an RC QP carries the connection" test "$(ipoib_qps RC)" -ge 1
if [ "$CXLAB_NODE" = "$srv" ]; then
	iperf_srv cm_tcp
	wait $!
else
	check "iperf3 -P 64 over ib0 (connected)" iperf_cli cm_tcp -t 5 -P 64 -J
	b=$(sent_rcvd cm_tcp.txt 2>/dev/null || echo 0)
	echo "iperf3 -P 64 connected: $b bytes received"
	check "iperf3 -P 64 moved data ($b bytes)" test "${b:-0}" -gt "$min_bytes"
fi
meet cm_iperf
check "echo datagram > mode" bash -c "echo datagram >$IPOIB_MODE_FILE"
ip link set ib0 mtu "$mtu"
meet cm_off
no_rc_qp() { [ "$(ipoib_qps RC)" = 0 ]; }
rc_left() {
	wait_for 30 no_rc_qp && return 0
	rdma res show qp
	return 1
}
check "no RC QP of ib_ipoib left after connected mode" rc_left
check "ping in datagram mode again" ping -c 3 -W 5 "$PEER_IP"
check "one UD QP for ib0" test "$(ipoib_qps UD)" = 1
meet cm_end

# ---- partitions: child interfaces -------------------------------------------------------------
if [ "$CXLAB_NODE" = "$srv" ]; then
	cat >/etc/opensm/partitions-lab.conf <<EOF
Default=0x7fff, ipoib : ALL=full ;
P1=0x8001, ipoib : ALL=full ;
P2=0x8002, ipoib : 0x$guid=full ;
EOF
	sm_stop lab
	check "opensm restarted with two IPoIB partitions" sm_start 10 lab
fi
has_pkey() { grep -qx "$1" $p/pkeys/*; }
wait_pkey() { wait_for 60 has_pkey "$1"; }
check "0x8001 in the P_Key table" wait_pkey 0x8001
check "ip link add ib0.8001 type ipoib pkey 0x8001" \
	ip link add link ib0 name ib0.8001 type ipoib pkey 0x8001
ip addr add 203.0.113."$CXLAB_INDEX"/24 dev ib0.8001
ip link set ib0.8001 up
check "ib0.8001 has carrier" wait_carrier ib0.8001 60
ip link add link ib0 name ib0.8002 type ipoib pkey 0x8002
ip link set ib0.8002 up
meet part
pip=203.0.113.$((CXLAB_INDEX == 1 ? 2 : 1))
check "ping $pip over ib0.8001" ping -c 3 -W 5 "$pip"
if [ "$CXLAB_NODE" = "$srv" ]; then
	check "ib0.8002 has carrier on node1, a member" wait_carrier ib0.8002 60
else
	sleep 5
	check "node2 has no 0x8002 in its table" bash -c "! grep -qx '0x[08]002' $p/pkeys/*"
	check "ib0.8002 has no carrier on node2, not a member" carrier_is ib0.8002 0
fi
meet part_done
ip link del ib0.8002
ip link del ib0.8001
if [ "$CXLAB_NODE" = "$srv" ]; then
	rm -f /etc/opensm/partitions-lab.conf
	sm_stop lab
	check "opensm restarted with the default partition" sm_start 10 lab
fi
no_pkey() { ! has_pkey "$1"; }
gone() { wait_for 60 no_pkey 0x8001; }
check "0x8001 gone from the table again" gone
meet part_end

# ---- rmmod cxib on node2 with ib0 up and iperf3 running ---------------------------------------
if [ "$CXLAB_NODE" = "$srv" ]; then
	iperf_srv reload
	isrv=$!
else
	wait_file "$PEERDIR/reload.ready" 60
	timeout 60 iperf3 -c "$PEER_IP" -p 5201 -t 30 >reload.txt 2>&1 &
	bw=$!
	sleep 4
	check "rmmod cxib while iperf3 runs over ib0" timeout 60 rmmod cxib
	check "ib0 is gone" test ! -e /sys/class/net/ib0
	sleep 2
	kill $bw 2>/dev/null
	wait $bw
	check "iperf3 did not complete (its device went away)" test $? != 0
	check "modprobe cxib" modprobe cxib
	check "ib0 comes back; address re-applied; carrier" ipoib_up 120
	check "port ACTIVE again (the SM saw it come back)" sm_wait_active 60
	# The new ib0 resolves its peer afresh (ARP over the broadcast group, then a path
	# record from the SA) while the SM still sweeps after the port's return: under make
	# check's load that once took longer than the three seconds of ARP one ping allows.
	reach() { ping -c 1 -W 2 "$PEER_IP" >/dev/null 2>&1; }
	t0=$SECONDS
	check "$PEER_IP reachable again within 30 s of the reload" wait_for 30 reach
	echo "     reachable after $((SECONDS - t0)) s"
	check "ping $PEER_IP after the reload" ping -c 3 -W 5 "$PEER_IP"
fi
meet reload
check "ping $PEER_IP at the end" ping -c 3 -W 5 "$PEER_IP"
[ -n "${isrv:-}" ] && kill "$isrv" 2>/dev/null
check "port still ACTIVE" test "$(cat $p/state)" = "4: ACTIVE"
dmesg >dmesg.txt
check "no WARN/BUG/Oops/hung task in dmesg" no_splat dmesg.txt
check "no IPoIB transmit timeouts or join failures" bash -c \
	"! grep -nE 'transmit timeout|multicast join failed|timing out; [0-9]+ sends' dmesg.txt"
exit $fail
