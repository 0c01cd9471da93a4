#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=300
#
# Subnet management: the stock opensm on node1 (started by `cxlab --sm opensm`, the lab's
# default) has brought both ports to ACTIVE through the model's SMA over QP0; the stock
# infiniband-diags then see a two-node subnet.  Each answer is checked, not only the exit
# status: LIDs, the SM LID, port states, GUIDs against sysfs, the SA's records, the PMA's
# counters against traffic, ibping between the nodes.
#
# Both nodes run this script; node1 (the SM node) and node2 meet through files on the share
# (each node's results directory is /cxlab/results/$CXLAB_JOB/<node>/ on the other).
set -u
. /cxlab/e2e/sm_lib.sh
hex() { printf '0x%x' "$1"; }
export -f dotted hex

dev=cxib_0
sys=/sys/class/infiniband/$dev
me=$CXLAB_NODE
srv=${CXLAB_NODES%% *}
peer=$(echo "$CXLAB_NODES" | awk -v me="$me" '{ for (i = 1; i <= NF; i++) if ($i != me) { print $i; exit } }')
PEERDIR=/cxlab/results/$CXLAB_JOB/$peer

modprobe ib_umad 2>/dev/null
modprobe ib_uverbs 2>/dev/null

# ---- the port as opensm left it ------------------------------------------------------------
wait_for 60 port_active $sys
# The error counters ibqueryerrors reads below are this scenario's own: the scenarios before
# it reload drivers, and an SMP that reaches a port in the instant its new QP0 is not yet
# receiving is, rightly, VL15Dropped.
check "own PMA counters reset (perfquery -R)" bash -c "perfquery -R >pq-own-reset.txt 2>&1"
st=$(cat $sys/ports/1/state 2>/dev/null)
check "port 1 ACTIVE (set by the SM)" test "$st" = "4: ACTIVE"
lid=$(($(cat $sys/ports/1/lid)))
smlid=$(($(cat $sys/ports/1/sm_lid)))
guid=$(cat $sys/node_guid)
pguid=$(cut -d: -f5- $sys/ports/1/gids/0 | tr -d :)
put_file lid "$lid"
put_file smlid "$smlid"
put_file guid "$guid"
check "LID assigned ($lid)" test "$lid" -ge 1 -a "$lid" -le 49151
check "SM LID set ($smlid)" test "$smlid" -ge 1 -a "$smlid" -le 49151
check "phys state LinkUp" test "$(cat $sys/ports/1/phys_state)" = "5: LinkUp"
check "rate is 40 Gb/sec (4X QDR)" grep -q '^40 Gb/sec (4X QDR)' $sys/ports/1/rate
check "P_Key 0 is the default full member" test "$(cat $sys/ports/1/pkeys/0)" = 0xffff
check_peer_files() { wait_file "$PEERDIR/lid" 60 && wait_file "$PEERDIR/smlid" 60; }
check "the peer reports its LID" check_peer_files
plid=$(cat "$PEERDIR/lid" 2>/dev/null || echo 0)
check "the two LIDs differ ($lid, $plid)" test "$lid" != "$plid"
check "both nodes name the same SM LID" test "$smlid" = "$(cat "$PEERDIR/smlid" 2>/dev/null)"
if [ "$me" = "$srv" ]; then
	check "the SM node's LID is the SM LID" test "$lid" = "$smlid"
	check "the SM node advertises IsSM" bash -c "(( $(cat $sys/ports/1/cap_mask) & 0x2 ))"
	check "opensm is running" bash -c "pgrep -x opensm >/dev/null"
else
	check "node2 is not the SM" test "$lid" != "$smlid"
fi

ibstat $dev 1 >ibstat.txt 2>&1
check "ibstat: State Active" has '^[[:space:]]*State: Active' ibstat.txt
check "ibstat: Base lid $lid" has "^[[:space:]]*Base lid: $lid\$" ibstat.txt
check "ibstat: SM lid $smlid" has "^[[:space:]]*SM lid: $smlid\$" ibstat.txt
ibstatus $dev:1 >ibstatus.txt 2>&1
check "ibstatus: 4: ACTIVE, base lid $(hex "$lid")" bash -c \
	"grep -q 'state:[[:space:]]*4: ACTIVE' ibstatus.txt && grep -qi 'base lid:[[:space:]]*$(hex "$lid")\$' ibstatus.txt"
check "ibstatus: sm lid $(hex "$smlid")" bash -c "grep -qi 'sm lid:[[:space:]]*$(hex "$smlid")\$' ibstatus.txt"

# ---- SMPs --------------------------------------------------------------------------------------
sminfo >sminfo.txt 2>&1
check "sminfo: master SM at LID $smlid" has "^sminfo: sm lid $smlid sm guid 0x[0-9a-f]+, activity count [0-9]+ priority [0-9]+ state 3 SMINFO_MASTER" sminfo.txt

for who in self peer; do
	if [ $who = self ]; then l=$lid; g=$guid; else l=$plid; g=$(cat "$PEERDIR/guid" 2>/dev/null); fi
	smpquery nodeinfo "$l" >ni-$who.txt 2>&1
	check "smpquery nodeinfo $l ($who): a channel adapter" has '^NodeType:\.+Channel Adapter' ni-$who.txt
	check "smpquery nodeinfo $l ($who): node GUID $g" test "$(dotted ni-$who.txt Guid)" = "0x${g//:/}"
	check "smpquery nodeinfo $l ($who): Mellanox, 1 port" bash -c \
		"[ '$(dotted ni-$who.txt VendorId)' = 0x0002c9 ] && [ '$(dotted ni-$who.txt NumPorts)' = 1 ]"
	smpquery portinfo "$l" 1 >pi-$who.txt 2>&1
	check "smpquery portinfo $l ($who): LID, SM LID" bash -c \
		"[ \$((\$(dotted pi-$who.txt Lid))) = $l ] && [ \$((\$(dotted pi-$who.txt SMLid))) = $smlid ]"
	check "smpquery portinfo $l ($who): Active, LinkUp, 4X" bash -c \
		"[ '$(dotted pi-$who.txt LinkState)' = Active ] && [ '$(dotted pi-$who.txt PhysLinkState)' = LinkUp ] && [ '$(dotted pi-$who.txt LinkWidthActive)' = 4X ]"
	check "smpquery portinfo $l ($who): MTU 4096 both ways" bash -c \
		"[ '$(dotted pi-$who.txt MtuCap)' = 4096 ] && [ '$(dotted pi-$who.txt NeighborMTU)' = 4096 ]"
	smpquery pkeys "$l" >pk-$who.txt 2>&1
	check "smpquery pkeys $l ($who): 0xffff at index 0" has '^ *0: 0xffff' pk-$who.txt
	smpquery guidinfo "$l" >guids-$who.txt 2>&1
	check "smpquery guidinfo $l ($who): the port GUID first" has "0x0*${g//:/}" guids-$who.txt
	smpquery nodedesc "$l" >nd-$who.txt 2>&1
	check "smpquery nodedesc $l ($who): the node description" bash -c \
		"[ -n \"\$(dotted nd-$who.txt 'Node Description')\" ]"
done
check "smpquery nodedesc (self) matches sysfs node_desc" \
	test "$(dotted nd-self.txt 'Node Description')" = "$(cat $sys/node_desc)"

ibaddr >ibaddr.txt 2>&1
check "ibaddr: own GID and LID" has "^GID fe80::.* LID start $(hex "$lid") end $(hex "$lid")\$" ibaddr.txt
ibaddr "$plid" >ibaddr-peer.txt 2>&1
check "ibaddr $plid: the peer's LID" has "LID start $(hex "$plid") end $(hex "$plid")\$" ibaddr-peer.txt

ibnetdiscover >ibnetdiscover.txt 2>&1
check "ibnetdiscover: two CAs" test "$(grep -c '^Ca[[:space:]]' ibnetdiscover.txt)" = 2
check "ibnetdiscover: the link, both LIDs, 4xQDR" has \
	"# lid $lid lmc 0 .* lid $plid 4xQDR" ibnetdiscover.txt
iblinkinfo >iblinkinfo.txt 2>&1
check "iblinkinfo: the link is 4X 10.0 Gbps Active/ LinkUp" has \
	'4X +10\.0 Gbps Active/ +LinkUp\)==>' iblinkinfo.txt
ibhosts >ibhosts.txt 2>&1
check "ibhosts: both nodes" test "$(grep -c '^Ca' ibhosts.txt)" = 2
ibtracert "$lid" "$plid" >ibtracert.txt 2>&1
check "ibtracert $lid -> $plid: one hop, CA to CA" bash -c \
	"grep -q '^From ca .* lid $lid-$lid' ibtracert.txt && grep -q '^To ca .* lid $plid-$plid' ibtracert.txt"

# ---- the SA (opensm's, reached over QP1; on node1 by loopback to its own LID) --------------------
saquery >sa-nr.txt 2>&1
check "saquery NodeRecord: two records" test "$(grep -c '^NodeRecord dump' sa-nr.txt)" = 2
check "saquery NodeRecord: both LIDs" bash -c \
	"grep -Eq '^[[:space:]]+lid\.+($lid|$(hex "$lid"))\$' sa-nr.txt && grep -Eq '^[[:space:]]+lid\.+($plid|$(hex "$plid"))\$' sa-nr.txt"
saquery PIR >sa-pir.txt 2>&1
check "saquery PortInfoRecord: both ports" test "$(grep -c '^PortInfoRecord dump' sa-pir.txt)" -ge 2
saquery -p --slid "$lid" --dlid "$plid" >sa-pr.txt 2>&1
check "saquery PathRecord $lid -> $plid: MTU 4096, 40 Gb/s" bash -c \
	"grep -Eq 'dlid\.+($plid|$(hex "$plid"))\$' sa-pr.txt && grep -Eq 'slid\.+($lid|$(hex "$lid"))\$' sa-pr.txt && \
	 grep -Eqi 'mtu\.+0x8?5\$' sa-pr.txt && grep -Eqi 'rate\.+0x8?7\$' sa-pr.txt"
saquery -g >sa-mcg.txt 2>&1
check "saquery MCGroup: the IPoIB broadcast group ff12:401b:ffff::ffff:ffff" has \
	'ff12:401b:ffff::ffff:ffff' sa-mcg.txt
check "saquery MCMemberRecord: answered" bash -c "saquery MCMR >sa-mcmr.txt 2>&1"

# ---- the PMA ---------------------------------------------------------------------------------
perfquery >pq.txt 2>&1
check "perfquery (own port, loopback to the own LID): counters" bash -c \
	"grep -q '^# Port counters: Lid $lid port 1' pq.txt && [ -n \"\$(dotted pq.txt PortXmitPkts)\" ]"
check "perfquery: the port has sent and received packets" bash -c \
	"[ \$(dotted pq.txt PortXmitPkts) -gt 0 ] && [ \$(dotted pq.txt PortRcvPkts) -gt 0 ]"
check "perfquery: no errors on a clean cable" bash -c \
	"[ \$(dotted pq.txt SymbolErrorCounter) = 0 ] && [ \$(dotted pq.txt PortRcvErrors) = 0 ] && [ \$(dotted pq.txt LinkDownedCounter) = 0 ]"
perfquery -x >pqx.txt 2>&1
check "perfquery -x: extended counters with unicast/multicast" bash -c \
	"grep -q '^# Port extended counters: Lid $lid port 1' pqx.txt && [ -n \"\$(dotted pqx.txt PortUnicastXmitPkts)\" ]"
check "perfquery -x: 64-bit data counters agree with the 32-bit ones" bash -c \
	"[ \$(dotted pqx.txt PortXmitData) -ge \$(dotted pq.txt PortXmitData) ]"
perfquery "$plid" 1 >pq-peer.txt 2>&1
check "perfquery $plid 1: the peer's counters" has "^# Port counters: Lid $plid port 1" pq-peer.txt

touch pma.read
if [ "$me" = "$srv" ]; then
	# reset the peer's counters, then read them: only the MADs of this exchange remain.
	# Not before the peer has read its own: a reset between its perfquery and perfquery -x
	# would make the 64-bit counters smaller than the 32-bit ones it read just before.
	wait_file "$PEERDIR/pma.read" 120
	perfquery -R "$plid" 1 >pq-reset.txt 2>&1
	check "perfquery -R $plid 1: reset" bash -c "! grep -qi 'iberror' pq-reset.txt"
	perfquery "$plid" 1 >pq-after.txt 2>&1
	check "perfquery after -R: the peer's counters start again near 0" bash -c \
		"[ \$(dotted pq-after.txt PortXmitPkts) -lt 20 ] && [ \$(dotted pq-after.txt PortRcvPkts) -lt 20 ]"
	touch reset.done
else
	wait_file "$PEERDIR/reset.done" 120
fi

# ---- ibping: server on node2, client on node1 ---------------------------------------------
if [ "$me" = "$srv" ]; then
	wait_file "$PEERDIR/ibping.ready" 60
	ibping -c 5 "$plid" >ibping.txt 2>&1
	check "ibping -c 5 $plid: 5 pongs, 0% loss" bash -c \
		"[ \$(grep -c '^Pong from' ibping.txt) = 5 ] && grep -q '5 packets transmitted, 5 received, 0% packet loss' ibping.txt"
	touch ibping.done
else
	ibping -S >ibping-server.txt 2>&1 &
	srvpid=$!
	# ready once it answers a ping of this node's own: its MAD agent is registered
	answers() { ibping -c 1 "$lid" 2>/dev/null | grep -q '^Pong from'; }
	if wait_for 30 answers; then
		echo "ibping -S answers its own node"
	else
		echo "ibping -S did not answer its own node within 30 s"
	fi
	touch ibping.ready
	check "ibping -S answered until node1 was done" wait_file "$PEERDIR/ibping.done" 120
	kill $srvpid 2>/dev/null
	wait $srvpid 2>/dev/null
fi

ibqueryerrors >ibqe.txt 2>&1
check "ibqueryerrors: 2 nodes checked, 0 bad" has '## Summary: 2 nodes checked, 0 bad nodes found' ibqe.txt

# The driver saw the SM's configuration as events, so ib_core's caches agree with the device.
dmesg >dmesg.txt
check "no WARN/BUG/Oops in dmesg" no_splat dmesg.txt
touch done
wait_file "$PEERDIR/done" 120
exit $fail
