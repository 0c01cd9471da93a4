#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=900
#
# NVMe-oF/RDMA failures survived, node2 the stock nvmet-rdma target (with a shared receive
# queue: use_srq=1), node1 the stock nvme-rdma host connected with --reconnect-delay 2
# --ctrl-loss-tmo 120, each case during an fio random-write + crc32c verify run on the
# memory-backed null_blk namespace:
#
#   port     the target's port removed while fio runs, re-added 4 s later: the host
#            reconnects and fio finishes with every block verified
#   rmmod    while fio runs, the target's port removed, then rmmod cxib, modprobe cxib, ib0's
#            address again and the port re-created -- an admin's driver reload; the host
#            reconnects to the new cxib_0 and fio verifies.  (nvmet-rdma re-listens by
#            itself only after an address change, not after a device removal:
#            drivers/nvme/target/rdma.c, nvmet_rdma_device_removal().)
#   disc     nvme disconnect on the host while fio runs: fio ends with I/O errors (not a
#            hang), the controller is gone, no QP, MR or CQ of nvme is left
#
# The target is node2 so that reloading its cxib leaves the subnet manager (opensm on node1)
# alone, as on a fabric whose SM runs elsewhere.  The port goes before the driver because of
# an upstream race, the same with mlx5: on rmmod, nvmet-rdma's ib_client drops the queues
# before rdma_cm's removes the listener, and a queue a reconnecting host opens in between
# (under TCG that window is over 10 s) is never released by nvmet-rdma (its DEVICE_REMOVAL
# handler leaves queues to the ib_client that already ran), so rmmod waits until that host
# disconnects.
#
# Each case checks on the target that fio was still running when the failure was made, and
# on the host that the controller really reconnected (a fio that finished first proves
# nothing).  Afterwards no nvme or nvmet QP, MR, CQ or SRQ is left, and dmesg has no
# warning or hung task.
set -u
. /cxlab/e2e/sm_lib.sh
. /cxlab/e2e/ipoib_lib.sh
. /cxlab/e2e/nvmeof_lib.sh

ipoib_start
check "ib0 up with carrier" ipoib_up 60
tgt=${CXLAB_NODES##* }
meet up
enabled() { dmesg | grep -c "nvmet_rdma: enabling port 1 ($MY_IP:4420)"; }
reconnected() { dmesg | grep -c 'Successfully reconnected'; }

if [ "$CXLAB_NODE" = "$tgt" ]; then
	# ---- target ------------------------------------------------------------------------------
	check "modprobe null_blk nvmet nvmet-rdma use_srq=1" nvmet_modules use_srq=1
	check "nvmet-rdma uses an SRQ" test "$(cat /sys/module/nvmet_rdma/parameters/use_srq)" = Y
	check "memory-backed null_blk, 256 MiB" mk_nullb
	check "nvmet subsystem" mk_subsys
	check "RDMA port $MY_IP:4420" port_add
	touch target.ready
	srq_seen=0

	# port removed and re-added during I/O
	wait_file "$PEERDIR/port.fio" 120
	sleep 2
	n=$(nvme_res srq)
	[ "$n" -gt 0 ] && srq_seen=1
	echo "nvmet holds $n SRQ(s), $(nvme_res qp) QP(s):"
	rdma res show qp | sed 's/^/  /'
	rdma res show srq | sed 's/^/  /'
	check "fio still running when the port goes" test ! -e "$PEERDIR/port.fio_done"
	check "port removed during I/O" port_del
	sleep 4
	check "port re-added" port_add
	touch port.back
	wait_file "$PEERDIR/port.done" 400

	# rmmod cxib on the target during I/O
	wait_file "$PEERDIR/rmmod.fio" 120
	sleep 2
	e0=$(enabled)
	check "fio still running when cxib goes" test ! -e "$PEERDIR/rmmod.fio_done"
	check "port removed" port_del
	t0=$(date +%s)
	check "rmmod cxib on the target during the host's I/O" timeout 120 rmmod cxib
	echo "rmmod cxib took $(($(date +%s) - t0)) s"
	check "modprobe cxib" modprobe cxib
	check "ib0 back with carrier" ipoib_up 120
	check "port ACTIVE again" sm_wait_active 60
	check "the port re-created on the new cxib_0" port_add
	check "nvmet-rdma listens again" test "$(enabled)" -gt "$e0"
	n=$(nvme_res srq)
	[ "$n" -gt 0 ] && srq_seen=1
	touch rmmod.back
	wait_file "$PEERDIR/rmmod.done" 400
	check "nvmet-rdma used an SRQ (rdma res show srq)" test $srq_seen = 1

	# the host disconnects during I/O; then nothing of nvmet may be left
	target_end 400
else
	# ---- host --------------------------------------------------------------------------------
	host_start
	check "nvme connect (reconnect delay 2 s, controller loss 120 s)" \
		conn --reconnect-delay 2 --ctrl-loss-tmo 120
	check "namespace 1 appears" wait_ns 1
	ns1=$(ns_dev 1)
	during() { # during CASE: fio over the failure the target makes, verified
		local r0
		r0=$(reconnected)
		fio_verify "$1" "$ns1" 4k 16 1 48M &
		local pid=$!
		sleep 1
		touch "$1.fio"
		wait $pid
		local rc=$?
		touch "$1.fio_done"
		check "$1: fio random write + crc32c verify across the failure" test $rc = 0
		check "$1: the controller reconnected during the run" \
			test "$(reconnected)" -gt "$r0"
	}
	during port
	touch port.done
	wait_file "$PEERDIR/port.back" 10
	during rmmod
	wait_file "$PEERDIR/rmmod.back" 10
	touch rmmod.done

	# nvme disconnect during I/O: fio must end, with errors, and nothing may hang
	timeout 300 fio --name=disc --filename="$ns1" --rw=randwrite --bs=4k --iodepth=16 \
		--size=64M --ioengine=libaio --direct=1 --time_based --runtime=120 \
		>disc.txt 2>&1 &
	pid=$!
	sleep 3
	check "nvme disconnect during I/O" \
		bash -c "timeout 120 nvme disconnect -n $NQN | grep -q 'disconnected 1 controller'"
	t0=$(date +%s)
	wait $pid
	rc=$?
	echo "fio after the disconnect: rc $rc after $(($(date +%s) - t0)) s"
	check "fio ended with an error, not a hang (rc $rc)" test $rc != 0 -a $rc != 124
	gone() { wait_for 30 no_nvme_ctrl; }
	check "the controller is gone" gone
	check "no nvme QP, MR or CQ left on the host" nvme_left
	check "rmmod nvme-rdma" modprobe -r nvme-rdma
	touch host.done
fi
meet end 300
dmesg >dmesg.txt
check "no WARN/BUG/Oops/hung task in dmesg" no_splat dmesg.txt
exit $fail
