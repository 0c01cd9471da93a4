# SPDX-License-Identifier: GPL-2.0-only
# One perftest run of `cxlab bench` on node1 (server) and node2 (client), sourced by the job
# script scripts/lib/cxlab/bench.py writes: it sets DEV (the RDMA device), PROG and ARGS
# (perftest's program and options), PORT (perftest's TCP port), MTU (the management
# interface's for rxe), TMO (seconds perftest may take), RXE (1: create rxe0 on the
# management interface first), SERVER and CLIENT (node names), then sources this file from
# /cxlab/e2e/.  Not a scenario (no #! line).  BENCH-* lines are what the bench parses.
set -u
ROLE=client; [ "$CXLAB_NODE" = "$SERVER" ] && ROLE=server
SDIR=/cxlab/results/$CXLAB_JOB/$SERVER CDIR=/cxlab/results/$CXLAB_JOB/$CLIENT
state() { echo "$*" >"$ROLE.state.tmp" && mv "$ROLE.state.tmp" "$ROLE.state"; }
fail() { echo "BENCH-ERROR: $*"; state "failed: $*"; exit 3; }
info() { echo "BENCH-INFO: $*"; }

# No udev in the lab: nothing loads ib_uverbs on demand.
modprobe ib_uverbs 2>err.txt || fail "modprobe ib_uverbs: $(head -n1 err.txt)"
netif=$(ip -o -4 addr show | awk -v a="$CXLAB_ADDR/" 'index($4, a) == 1 { print $2; exit }')
[ -n "$netif" ] || fail "no interface carries $CXLAB_ADDR"
if [ "$RXE" = 1 ]; then
	modprobe rdma_rxe 2>err.txt || fail "modprobe rdma_rxe: $(head -n1 err.txt)"
	if [ "$(cat /sys/class/net/$netif/mtu)" != "$MTU" ]; then
		ip link set dev "$netif" mtu "$MTU" 2>err.txt ||
			info "mtu_refused=$MTU ($(head -n1 err.txt | tr ' ' _))"
	fi
	[ -e /sys/class/infiniband/$DEV ] ||
		rdma link add "$DEV" type rxe netdev "$netif" 2>err.txt ||
		fail "rdma link add $DEV type rxe netdev $netif: $(head -n1 err.txt)"
fi
sys=/sys/class/infiniband/$DEV
[ -e "$sys" ] ||
	fail "no RDMA device $DEV on $CXLAB_NODE" \
		"(present: $(ls /sys/class/infiniband 2>/dev/null | tr '\n' ' '))"
st=
for _ in $(seq 40); do
	st=$(cat $sys/ports/1/state 2>/dev/null)
	[ "$st" = "4: ACTIVE" ] && break
	sleep 0.5
done
[ "$st" = "4: ACTIVE" ] || fail "$DEV port 1 is not ACTIVE (${st:-no state})"
uv=
for u in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat $u/ibdev 2>/dev/null)" = "$DEV" ] && uv=${u##*/}
done
[ -n "$uv" ] ||
	fail "$DEV has no uverbs device (ib_uverbs is loaded): the driver offers no userspace verbs"
ibv_devices >devs.txt 2>&1
awk '{ print $1 }' devs.txt | grep -qx "$DEV" ||
	fail "libibverbs lists no $DEV (no provider matched it): $(grep -i -m1 'warn\|err' devs.txt)"
ll=$(cat $sys/ports/1/link_layer)
gidopt=
if [ "$ll" = Ethernet ]; then
	# RoCE: perftest needs -x <GID index>: the RoCE v2 GID of our IPv4 address.
	IFS=. read -r a b c d <<<"$CXLAB_ADDR"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for g in $sys/ports/1/gids/*; do
		i=${g##*/}
		if [ "$(cat $g 2>/dev/null)" = "$want" ] &&
			[ "$(cat $sys/ports/1/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ]; then
			gidopt="-x $i"
			break
		fi
	done
	[ -n "$gidopt" ] || fail "$DEV has no RoCE v2 GID for $CXLAB_ADDR"
fi
# (InfiniBand: perftest addresses the peer by LID; the SM of the lab assigns it.)
amtu=$(ibv_devinfo -d "$DEV" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')
info "dev=$DEV link_layer=$ll netif=$netif netdev_mtu=$(cat /sys/class/net/$netif/mtu)" \
	"active_mtu=${amtu:-?} lid=$(cat $sys/ports/1/lid) gid_index=${gidopt#-x } uverbs=$uv" \
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

end=$((SECONDS + 90))
until [ -s "$SDIR/server.state" ]; do
	[ $SECONDS -ge $end ] && fail "the server on $SERVER did not start"
	sleep 0.5
done
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
