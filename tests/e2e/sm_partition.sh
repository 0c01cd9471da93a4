#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=300
#
# Partitions from opensm's partitions.conf, enforced on the data path: P_Key 0x8001 with
# node1 a full and node2 a limited member (0x0001 in node2's table), and 0x8002 with node1
# only.  opensm writes the P_Key tables through SubnSet(P_KeyTable); UD traffic on 0x8001
# (full to limited) flows; UD sends from node1 on 0x8002, which node2 lacks, are dropped by
# node2's port and counted (PortInfo P_KeyViolations, PMA PortRcvConstraintErrors).  At the
# end the default partitions come back.
set -u
. /cxlab/e2e/sm_lib.sh
# pkey_index PKEY: its index in port 1's table, "" if absent.  One grep over the table's
# files: each file read is a MAD_IFC query to the firmware, and a process per entry (128)
# made one look take seconds under TCG.
pkey_index() {
	local f
	f=$(grep -lx "$1" /sys/class/infiniband/cxib_0/ports/1/pkeys/* 2>/dev/null | sort -t/ -k9 -n | head -n1)
	[ -n "$f" ] && basename "$f"
}
wait_pkey() { # wait_pkey PKEY SECONDS: by the clock, however long each look takes
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		pkey_index "$1" >/dev/null && return 0
		sleep 0.2
	done
	pkey_index "$1" >/dev/null
}
# what a failed wait leaves for the reader: this port's table, opensm's log on the SM node
pkey_evidence() {
	grep -H . /sys/class/infiniband/cxib_0/ports/1/pkeys/* 2>/dev/null |
		grep -v ':0x0000$' >"pkeys-$1.txt"
	[ -f /var/log/opensm-lab.log ] && cp /var/log/opensm-lab.log "opensm-$1.log"
}

if [ "${CXLAB_SM:-}" != opensm ]; then
	echo "FAIL this scenario needs the lab's opensm (cxlab --sm opensm, the default)"
	exit 1
fi
modprobe ib_umad
me=$CXLAB_NODE
srv=${CXLAB_NODES%% *}
peer=$(echo "$CXLAB_NODES" | awk -v me="$me" '{ for (i = 1; i <= NF; i++) if ($i != me) { print $i; exit } }')
PEERDIR=/cxlab/results/$CXLAB_JOB/$peer
p=/sys/class/infiniband/cxib_0/ports/1
# lid first: the peer waits for guid, then reads both (put_file: each appears whole)
put_file lid $(($(cat $p/lid)))
put_file guid "$(cut -d: -f5- $p/gids/0 | tr -d :)"
wait_file "$PEERDIR/guid" 60
pguid=$(cat "$PEERDIR/guid")
plid=$(cat "$PEERDIR/lid")
check "the peer's port GUID ($pguid) and LID ($plid) read" \
	bash -c "[[ '$pguid' =~ ^[0-9a-f]{16}\$ ]] && [ '${plid:-0}' -gt 0 ]"

if [ "$me" = "$srv" ]; then
	cat >/etc/opensm/partitions-lab.conf <<EOF
Default=0x7fff, ipoib : ALL=full ;
P1=0x8001 : 0x$(cat guid)=full, 0x$pguid=limited ;
P2=0x8002 : 0x$(cat guid)=full ;
EOF
	cp /etc/opensm/partitions-lab.conf .
	sm_stop lab
	check "opensm restarted with the partitions" sm_start 10 lab
fi
if [ "$me" = "$srv" ]; then
	check "node1 is a full member of 0x8001" wait_pkey 0x8001 60
	check "node1 is a full member of 0x8002" wait_pkey 0x8002 30
else
	check "node2 is a limited member of 0x8001 (0x0001)" wait_pkey 0x0001 60
	check "node2 has no 0x8002" bash -c "! grep -qx '0x[08]002' $p/pkeys/*"
	check "node2 kept the default partition at index 0" test "$(cat $p/pkeys/0)" = 0xffff
fi
[ "$fail" = 0 ] || pkey_evidence partitioned
touch tables.ready
wait_file "$PEERDIR/tables.ready" 90
cat $p/pkeys/* | grep -v '^0x0000$' >pkeys.txt

# ---- 0x8001, full (node1, client) to limited (node2, server): UD flows ----------------------
if [ "$me" = "$srv" ]; then
	wait_file "$PEERDIR/bw1.ready" 60
	idx=$(pkey_index 0x8001)
	timeout 60 ib_send_bw -d cxib_0 -c UD -s 1024 -n 200 --pkey_index="$idx" \
		-p 18710 "$CXLAB_PEER_ADDR" >bw1.txt 2>&1
	check "ib_send_bw -c UD on 0x8001 (index $idx): full member to limited member" test $? = 0
	touch bw1.done
else
	idx=$(pkey_index 0x0001)
	timeout 60 ib_send_bw -d cxib_0 -c UD -s 1024 -n 200 --pkey_index="$idx" \
		-p 18710 >bw1.txt 2>&1 &
	bw=$!
	sleep 1
	touch bw1.ready
	wait $bw
	check "ib_send_bw -c UD server on 0x0001 (index $idx) received every message" test $? = 0
	wait_file "$PEERDIR/bw1.done" 60
fi

# ---- 0x8002, which node2 lacks: node2's port drops the sends and counts them --------------
# The server waits (up to 60 s) until the client says it is done, so a slow start of either
# side under TCG cannot end the server before the client has sent anything.
pviol() { smpquery portinfo "$1" 1 >pi.txt 2>&1 && dotted pi.txt PkeyViolations; }
constr() { perfquery "$1" 1 >pq.txt 2>&1 && dotted pq.txt PortRcvConstraintErrors; }
xmit() { perfquery >pqx.txt 2>&1 && dotted pqx.txt PortXmitPkts; }
if [ "$me" = "$srv" ]; then
	v0=$(pviol "$plid")
	c0=$(constr "$plid")
	x0=$(xmit)
	wait_file "$PEERDIR/bw2.ready" 60
	idx=$(pkey_index 0x8002)
	timeout 20 ib_send_bw -d cxib_0 -c UD -s 256 -n 20 --pkey_index="$idx" \
		-p 18712 "$CXLAB_PEER_ADDR" >bw2.txt 2>&1
	touch bw2.done
	wait_file "$PEERDIR/bw2.ended" 60
	v1=$(pviol "$plid")
	c1=$(constr "$plid")
	x1=$(xmit)
	echo "node2 P_KeyViolations $v0 -> $v1, PortRcvConstraintErrors $c0 -> $c1;" \
		"node1 PortXmitPkts $x0 -> $x1" | tee counters.txt
	check "node1 sent the 0x8002 messages (PortXmitPkts grew by >= 20)" \
		test "${x1:-0}" -ge $((${x0:-0} + 20))
	check "node2 counted P_Key violations (PortInfo)" test "${v1:-0}" -gt "${v0:-0}"
	check "node2 counted PortRcvConstraintErrors (PMA)" test "${c1:-0}" -gt "${c0:-0}"
else
	idx=$(pkey_index 0x0001)
	timeout 90 ib_send_bw -d cxib_0 -c UD -s 256 -n 20 --pkey_index="$idx" \
		-p 18712 >bw2.txt 2>&1 &
	bw=$!
	sleep 1
	touch bw2.ready
	wait_file "$PEERDIR/bw2.done" 80
	sleep 1
	# still waiting for its 20 messages: none arrived
	kill -0 $bw 2>/dev/null && kill $bw
	wait $bw
	rc=$?
	check "the server on 0x0001 got nothing from 0x8002 (still waiting, rc $rc)" test $rc != 0
	touch bw2.ended
fi

# ---- back to the default partitions -----------------------------------------------------
if [ "$me" = "$srv" ]; then
	wait_file "$PEERDIR/bw2.ended" 60
	rm -f /etc/opensm/partitions-lab.conf
	sm_stop lab
	check "opensm restarted without the partitions" sm_start 10 lab
	gone() { ! pkey_index 0x8001 >/dev/null && ! pkey_index 0x8002 >/dev/null; }
	end=$((SECONDS + 60))
	until gone || [ $SECONDS -ge $end ]; do sleep 0.2; done
	check "node1's tables are back to the default" gone
	touch restored
else
	wait_file "$PEERDIR/restored" 120
	end=$((SECONDS + 30))
	until ! pkey_index 0x0001 >/dev/null || [ $SECONDS -ge $end ]; do sleep 0.2; done
	check "node2's tables are back to the default" bash -c "! grep -qx '0x0001' $p/pkeys/*"
fi
check "port still ACTIVE" test "$(cat $p/state)" = "4: ACTIVE"
[ "$fail" = 0 ] || pkey_evidence end
dmesg >dmesg.txt
check "no WARN/BUG/Oops in dmesg" no_splat dmesg.txt
exit $fail
