# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# One row of `cxlab bench --nvmeof` on node1 (target) and node2 (host), sourced by the job
# script scripts/lib/cxlab/nvmebench.py writes: it sets TEST (the row), PATHNAME
# (nvme-rdma-cxib, nvme-tcp-virtio, nvme-rdma-rxe), SECS (fio's runtime), FIOOPTS (fio's
# options for the row), SERVER (the target's node name) and IBNET (ib0's /24), then
# sources this file from /cxlab/e2e/.  Not a scenario (no #! line).  The target exports a
# null_blk namespace on three ports (RDMA over ib0, TCP and RDMA over the management
# interface, where rxe0 sits); the host connects over the row's path, checks which RDMA
# device carries the queues and runs fio.  BENCH-* lines are what the bench parses; the
# host's fio JSON is its number.
set -u
# shellcheck source=check.sh
. /cxlab/e2e/check.sh
# shellcheck source=ipoib_lib.sh
. /cxlab/e2e/ipoib_lib.sh	# wait_carrier
ROLE=client; [ "$CXLAB_NODE" = "$SERVER" ] && ROLE=server
SDIR=/cxlab/results/$CXLAB_JOB/$SERVER
NQN=nqn.2026-12.org.cxib:bench
CFS=/sys/kernel/config
fail() { echo "BENCH-ERROR: $*"; put_file "$ROLE.state" "failed: $*"; exit 3; }
nvme_ns() { # the block device of namespace 1 (nvmeXn1; nvmeXcYn1 is a hidden path), or nothing
	local b
	for b in /sys/block/nvme*n1; do
		[[ ${b##*/} =~ ^nvme[0-9]+n1$ ]] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}
has_ns() { nvme_ns >/dev/null; }
port() { # port N TRTYPE ADDR SVCID: nvmet port N linked to the subsystem
	local p=$CFS/nvmet/ports/$1
	[ -e "$p" ] && return 0
	mkdir "$p" && echo "$2" >"$p/addr_trtype" && echo ipv4 >"$p/addr_adrfam" &&
		echo "$3" >"$p/addr_traddr" && echo "$4" >"$p/addr_trsvcid" &&
		ln -s "$CFS/nvmet/subsystems/$NQN" "$p/subsystems/$NQN"
}

modprobe ib_ipoib && modprobe rdma_ucm && modprobe rdma_rxe || fail "cannot load ib_ipoib/rdma_rxe"
wait_file /sys/class/net/ib0 10
ip link set ib0 up
ip addr replace "$IBNET.$CXLAB_INDEX/24" dev ib0
wait_carrier ib0 60 || fail "ib0 has no carrier (is the SM up?)"
[ -e /sys/class/infiniband/rxe0 ] || rdma link add rxe0 type rxe netdev eth0 ||
	fail "rdma link add rxe0 failed"
if [ "$ROLE" = server ]; then
	mountpoint -q $CFS || mount -t configfs none $CFS
	modprobe null_blk nr_devices=0 && modprobe nvmet && modprobe nvmet-rdma &&
		modprobe nvmet-tcp || fail "cannot load nvmet"
	s=$CFS/nvmet/subsystems/$NQN
	if [ ! -e "$s" ]; then
		mkdir $CFS/nullb/cxbench && echo 1024 >$CFS/nullb/cxbench/size &&
			echo 1 >$CFS/nullb/cxbench/power || fail "null_blk"
		nb=/dev/cxbench
		[ -e /sys/block/cxbench ] || nb=/dev/nullb$(cat $CFS/nullb/cxbench/index)
		mkdir "$s" && echo 1 >"$s/attr_allow_any_host" && mkdir "$s/namespaces/1" &&
			echo "$nb" >"$s/namespaces/1/device_path" &&
			echo 1 >"$s/namespaces/1/enable" || fail "nvmet subsystem"
	fi
	port 1 rdma "$IBNET.1" 4420 && port 2 tcp "$CXLAB_SERVER_ADDR" 4421 &&
		port 3 rdma "$CXLAB_SERVER_ADDR" 4422 || fail "nvmet ports"
	put_file server.state ready
	exit 0
fi
wait_file "$SDIR/server.state" 60
s=$(cat "$SDIR/server.state" 2>/dev/null)
[ "$s" = ready ] || fail "server side: ${s:-did not start}"
modprobe nvme-rdma && modprobe nvme-tcp || fail "cannot load nvme-rdma/nvme-tcp"
case $PATHNAME in
nvme-rdma-cxib) args="-t rdma -a $IBNET.1 -s 4420"; dev=cxib_0 ;;
nvme-tcp-virtio) args="-t tcp -a $CXLAB_SERVER_ADDR -s 4421"; dev=- ;;
nvme-rdma-rxe) args="-t rdma -a $CXLAB_SERVER_ADDR -s 4422"; dev=rxe0 ;;
*) fail "unknown path $PATHNAME" ;;
esac
ping -c 2 -W 5 "$IBNET.1" >/dev/null 2>&1
# shellcheck disable=SC2086
timeout 60 nvme connect $args -n $NQN >conn.txt 2>&1 || fail "nvme connect $args: $(tail -n1 conn.txt)"
wait_for 10 has_ns || { nvme disconnect -n $NQN; fail "no namespace after connect"; }
ns=$(nvme_ns)
# the RDMA device the controller's queues are really on (rdma_cm names its QPs so)
used=$(rdma res show qp 2>/dev/null | awk '/comm \[rdma_cm\]/ { sub("/.*", "", $2); print $2; exit }')
echo "BENCH-INFO: path=$PATHNAME $args ns=$ns rdma_device=${used:--}" \
	"transport=$(cat /sys/class/nvme/nvme*/transport 2>/dev/null | head -n1)"
if [ "${used:--}" != "$dev" ]; then
	nvme disconnect -n $NQN >/dev/null 2>&1
	fail "the queues are on ${used:-no RDMA device}, not on $dev"
fi
# shellcheck disable=SC2086
timeout $((SECS + 60)) fio --name=bench --filename="$ns" $FIOOPTS --ioengine=libaio \
	--direct=1 --time_based --runtime=$SECS --ramp_time=1 --output-format=json
rc=$?
nvme disconnect -n $NQN >/dev/null 2>&1
exit $rc
