#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=300
#
# SM failover: node1's opensm (the lab's, priority 10) is master; node2 starts a standby
# opensm (priority 5).  While ib_write_bw runs between the nodes, node1's master is killed:
# node2's standby stops hearing it (SMInfo polls), takes over as master and sweeps.  The
# ports stay ACTIVE with the same LIDs, both name node2 as their SM, and the verbs traffic
# finishes without an error.  Then node2's SM goes away and node1's comes back as master.
# Each step's time is in timeline.txt.
set -u
. /cxlab/e2e/sm_lib.sh
t0=$(date +%s.%N)
mark() { awk -v a="$(date +%s.%N)" -v b="$t0" -v m="$*" 'BEGIN { printf "%6.1fs  %s\n", a - b, m }' |
	tee -a timeline.txt; }
sm_lid_is() { [ $(($(cat /sys/class/infiniband/cxib_0/ports/1/sm_lid))) = "$1" ]; }
wait_sm_lid() { wait_for "$2" sm_lid_is "$1"; } # wait_sm_lid LID SECONDS

if [ "${CXLAB_SM:-}" != opensm ]; then
	echo "FAIL this scenario needs the lab's opensm (cxlab --sm opensm, the default)"
	exit 1
fi
me=$CXLAB_NODE
srv=${CXLAB_NODES%% *}
peer=$(echo "$CXLAB_NODES" | awk -v me="$me" '{ for (i = 1; i <= NF; i++) if ($i != me) { print $i; exit } }')
PEERDIR=/cxlab/results/$CXLAB_JOB/$peer
p=/sys/class/infiniband/cxib_0/ports/1
lid=$(($(cat $p/lid)))
put_file lid "$lid"
wait_file "$PEERDIR/lid" 60
plid=$(cat "$PEERDIR/lid")
if [ "$me" = "$srv" ]; then mlid=$lid; slid=$plid; else mlid=$plid; slid=$lid; fi
check "node1 ($mlid) is the master SM" sm_lid_is "$mlid"
mark "$me: LID $lid, master SM LID $mlid"

if [ "$me" != "$srv" ]; then
	# ---- node2: standby SM, bandwidth client ----
	check "standby opensm started (priority 5)" sm_start 5 standby
	standby() { grep -q 'Entering STANDBY state' /var/log/opensm-standby.log 2>/dev/null; }
	check "node2's opensm entered STANDBY" wait_for 30 standby
	mark "node2: standby SM up"
	touch standby.ready
	wait_file "$PEERDIR/bw.ready" 60
	ib_write_bw -d cxib_0 -D 20 -s 65536 "$CXLAB_SERVER_ADDR" >bw.txt 2>&1 &
	bw=$!
	mark "node2: ib_write_bw started (20 s)"
	touch bw.started
	master() { grep -q 'Entering MASTER state' /var/log/opensm-standby.log 2>/dev/null; }
	wait_file "$PEERDIR/killed" 60
	check "node2's opensm took over (Entering MASTER state)" wait_for 60 master
	mark "node2: standby is MASTER"
	check "node2's port names node2 as SM" wait_sm_lid "$slid" 60
	mark "node2: sm_lid is $slid"
	wait $bw
	rc=$?
	mark "node2: ib_write_bw ended, status $rc"
	check "ib_write_bw across the failover exited 0" test $rc = 0
	check "ib_write_bw measured a bandwidth" grep -qE '^ *65536 +[0-9]+ ' bw.txt
	touch failover.done
	wait_file "$PEERDIR/check.done" 120
	check "standby opensm stopped" sm_stop standby
	mark "node2: its SM stopped"
	touch standby.stopped
else
	# ---- node1: the master to kill, bandwidth server ----
	wait_file "$PEERDIR/standby.ready" 90
	ib_write_bw -d cxib_0 -D 20 -s 65536 >bw.txt 2>&1 &
	bw=$!
	sleep 1
	touch bw.ready
	wait_file "$PEERDIR/bw.started" 60
	sleep 4
	mark "node1: killing the master opensm"
	pkill -9 -f 'opensm .*-F /etc/opensm/lab.conf'
	touch killed
	check "node1's port names node2 as SM" wait_sm_lid "$slid" 60
	mark "node1: sm_lid is $slid"
	wait $bw
	rc=$?
	mark "node1: ib_write_bw ended, status $rc"
	check "ib_write_bw server across the failover exited 0" test $rc = 0
	wait_file "$PEERDIR/failover.done" 120
	touch check.done
	wait_file "$PEERDIR/standby.stopped" 60
	check "node1's opensm started again" sm_start 10 lab
	mark "node1: SM restarted"
	check "node1 is the SM again" wait_sm_lid "$mlid" 90
	mark "node1: sm_lid is $mlid again"
	touch back.done
fi
[ "$me" = "$srv" ] || check "node1's SM came back" wait_file "$PEERDIR/back.done" 120
check "port still ACTIVE" test "$(cat $p/state)" = "4: ACTIVE"
check "LID unchanged ($lid)" test $(($(cat $p/lid))) = "$lid"
[ "$me" = "$srv" ] || check "node2 sees node1 as SM again" wait_sm_lid "$mlid" 60
cp /var/log/opensm-*.log . 2>/dev/null
dmesg >dmesg.txt
check "no WARN/BUG/Oops in dmesg" no_splat dmesg.txt
exit $fail
