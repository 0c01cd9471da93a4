# SPDX-License-Identifier: GPL-2.0-only
# One perftest run of `cxlab bench` on node1 (server) and node2 (client), sourced by the job
# script scripts/lib/cxlab/bench.py writes: it sets DEV (the RDMA device), PROG and ARGS
# (perftest's program and options), PORT (perftest's TCP port), MTU (the management
# interface's for rxe), TMO (seconds perftest may take), RXE (1: create rxe0 on the
# management interface first), SERVER and CLIENT (node names), then sources this file from
# /cxlab/e2e/.  Not a scenario (no #! line).  BENCH-* lines are what the bench parses.
# shellcheck shell=bash
set -u
# The device checks every userspace-verbs scenario makes (e2e_setup), and check.sh's helpers.
# shellcheck source=lib.sh
. /cxlab/e2e/lib.sh
roles() { # the bench's SERVER and CLIENT (e2e_setup sets its own from CXLAB_NODES)
	ROLE=client
	[ "$CXLAB_NODE" = "$SERVER" ] && ROLE=server
	SDIR=/cxlab/results/$CXLAB_JOB/$SERVER CDIR=/cxlab/results/$CXLAB_JOB/$CLIENT
}
state() { put_file "$ROLE.state" "$*"; }
fail() { echo "BENCH-ERROR: $*"; state "failed: $*"; exit 3; }
info() { echo "BENCH-INFO: $*"; }
roles

netif=$(ip -o -4 addr show | awk -v a="$CXLAB_ADDR/" 'index($4, a) == 1 { print $2; exit }')
[ -n "$netif" ] || fail "no interface carries $CXLAB_ADDR"
if [ "$RXE" = 1 ] && [ "$(cat /sys/class/net/$netif/mtu)" != "$MTU" ]; then
	# before e2e_setup creates rxe0, whose MTU follows the interface's
	ip link set dev "$netif" mtu "$MTU" 2>err.txt ||
		info "mtu_refused=$MTU ($(head -n1 err.txt | tr ' ' _))"
fi
E2E_DEVICE=$DEV
[ "$RXE" = 1 ] && E2E_DEVICE=rxe
e2e_setup || fail "$E2E_SETUP_REASON"
roles
sys=/sys/class/infiniband/$DEV
gidopt=
[ -n "$GIDX" ] && gidopt="-x $GIDX"
info "dev=$DEV link_layer=$LINK netif=$netif netdev_mtu=$(cat /sys/class/net/$netif/mtu)" \
	"active_mtu=${ACTIVE_MTU:-?} lid=$(cat $sys/ports/1/lid) gid_index=$GIDX uverbs=$UVERBS" \
	"perftest=$(dpkg-query -W -f='${Version}' perftest 2>/dev/null | tr ' ' _)"
cmd="$PROG -d $DEV -i 1 $gidopt -F -p $PORT $ARGS"
hwc() {
	local f
	for f in $sys/ports/1/hw_counters/*; do
		[ -f "$f" ] && printf '%s=%s ' "${f##*/}" "$(cat "$f" 2>/dev/null)"
	done
}
echo "BENCH-HWC-BEFORE: $(hwc)"
dmesg_at=$(dmesg | wc -l)
newdmesg() { dmesg | tail -n +$((dmesg_at + 1)) | tail -n 20 | sed 's/^/BENCH-DMESG: /'; }

if [ "$ROLE" = server ]; then
	info "server_cmd=$(echo $cmd | tr ' ' '~')"
	$cmd >perftest.txt 2>&1 &
	pid=$!
	state listening
	end=$((SECONDS + TMO))
	while kill -0 $pid 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			kill $pid
			echo "BENCH-ERROR: server: $PROG did not finish within ${TMO}s"
			break
		fi
		if grep -qs '^failed' "$CDIR/client.state"; then
			sleep 2
			kill $pid 2>/dev/null && info "server_stopped=client_failed"
			break
		fi
		sleep 0.5
	done
	wait $pid
	rc=$?
	echo "BENCH-HWC-AFTER: $(hwc)"
	newdmesg
	cat perftest.txt
	exit $rc
fi

wait_file "$SDIR/server.state" 90 || fail "the server on $SERVER did not start"
s=$(cat "$SDIR/server.state")
case $s in failed*) fail "server side ($SERVER): ${s#failed: }" ;; esac
info "client_cmd=$(echo $cmd | tr ' ' '~')~$CXLAB_SERVER_ADDR"
sleep 1
for _ in $(seq 15); do
	timeout --kill-after=5 "$TMO" $cmd "$CXLAB_SERVER_ADDR" >perftest.txt 2>&1
	rc=$?
	grep -q "Couldn't connect\|Unable to connect\|Connection refused" perftest.txt || break
	sleep 1
done
echo "BENCH-HWC-AFTER: $(hwc)"
newdmesg
cat perftest.txt
[ $rc = 124 ] && echo "BENCH-ERROR: client: $PROG did not finish within ${TMO}s"
if [ $rc != 0 ]; then
	state "failed: exit $rc"
	exit $rc
fi
state "done"
