#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=900
#
# NVMe-oF/RDMA between the lab's nodes with the stock nvmet-rdma target (node1) and the
# stock nvme-rdma host (node2), over rdma_cm on cxib_0's IPoIB address, under opensm.
#
#   target  configfs: subsystem cxtest with namespace 1 a memory-backed null_blk (data is
#           kept, so it can be verified), namespace 2 a file on node1's disk and namespace 3
#           node1's own virtio-blk disk (/dev/vdb, the lab's scratch disk); port 4420
#           on 198.51.100.1 (addr_trtype rdma, addr_adrfam ipv4)
#   host    nvme discover; nvme connect; nvme list; fio --verify=crc32c random write+verify
#           at 4 KiB and 128 KiB (iodepth 1 and 32, two jobs); mkfs.ext4, a file tree copied
#           in, sha256 compared, unmounted, disconnected, reconnected, compared again;
#           connect with --nr-io-queues 1 --queue-size 128 (6.1) or 256 (6.12) and with
#           --nr-poll-queues 1;
#           rmmod cxib with a controller connected (the controller goes, no hung task),
#           modprobe cxib; no QP, MR or CQ of nvme left afterwards
#
# Failures during I/O and the target's SRQ: nvmeof_fail.sh.  Not here yet: large
# fast-registration page lists, the three-way benchmark.
set -u
. /cxlab/e2e/sm_lib.sh
. /cxlab/e2e/ipoib_lib.sh
. /cxlab/e2e/nvmeof_lib.sh

ipoib_start
check "ib0 up with carrier" ipoib_up 60
srv=${CXLAB_NODES%% *}
meet up

if [ "$CXLAB_NODE" = "$srv" ]; then
	# ---- target ------------------------------------------------------------------------------
	check "modprobe null_blk nvmet nvmet-rdma" nvmet_modules
	check "memory-backed null_blk, 256 MiB" mk_nullb
	check "null_blk disk $NB exists" test -b "$NB"
	check "file for namespace 2" truncate -s 256M /var/tmp/cxns2.img
	check "/dev/vdb, the node's own virtio-blk disk, for namespace 3" \
		test "$(basename "$(readlink /sys/block/vdb/device/driver)")" = virtio_blk
	check "nvmet subsystem, 3 namespaces" mk_subsys /var/tmp/cxns2.img /dev/vdb
	check "RDMA port $MY_IP:4420" port_add
	check "nvmet-rdma listens" bash -c "dmesg | grep -q 'nvmet_rdma: enabling port 1 ($MY_IP:4420)'"
	touch target.ready
	target_end 600
else
	# ---- host --------------------------------------------------------------------------------
	host_start
	timeout 60 nvme discover -t rdma -a "$PEER_IP" -s 4420 >discover.txt 2>&1
	check "nvme discover -t rdma lists $NQN" has "subnqn: *$NQN" discover.txt
	check "nvme connect -t rdma" conn
	check "namespace 1 appears" wait_ns 1
	check "namespace 2 appears" wait_ns 2
	check "namespace 3 appears" wait_ns 3
	nvme list >list.txt 2>&1
	check "nvme list shows the three namespaces" test "$(grep -c '/dev/nvme' list.txt)" -ge 3
	ns1=$(ns_dev 1)
	ns2=$(ns_dev 2)
	ns3=$(ns_dev 3)
	echo "namespaces: $ns1 $ns2 $ns3"
	check "fio verify 4 KiB QD1 on ns1" fio_verify ns1_4k_qd1 "$ns1" 4k 1 1
	check "fio verify 4 KiB QD32 x2 jobs on ns1" fio_verify ns1_4k_qd32 "$ns1" 4k 32 2
	check "fio verify 128 KiB QD32 x2 jobs on ns1" fio_verify ns1_128k_qd32 "$ns1" 128k 32 2
	check "fio verify 1 MiB QD4 on ns1" fio_verify ns1_1m_qd4 "$ns1" 1m 4 1
	check "fio verify 128 KiB QD1 on ns2 (file)" fio_verify ns2_128k_qd1 "$ns2" 128k 1 1
	check "fio verify 4 KiB QD32 on ns2 (file)" fio_verify ns2_4k_qd32 "$ns2" 4k 32 1
	check "fio verify 128 KiB QD8 on ns3 (virtio-blk)" fio_verify ns3_128k_qd8 "$ns3" 128k 8 1
	check "fio verify 4 KiB QD16 on ns3 (virtio-blk)" fio_verify ns3_4k_qd16 "$ns3" 4k 16 1

	# a file system, written, compared, remounted after a reconnect, compared again
	src=/usr/share/perl5
	mkdir -p /mnt/cx
	check "mkfs.ext4 on ns1" mkfs.ext4 -q -F "$ns1"
	check "mount ns1" mount "$ns1" /mnt/cx
	check "copy a file tree ($src)" bash -c "mountpoint -q /mnt/cx && cp -a $src /mnt/cx/tree"
	sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
	sums $src >src.sha
	check "sha256 of every file equal" bash -c "mountpoint -q /mnt/cx && diff -q src.sha <(cd /mnt/cx/tree && find . -type f -print0 | sort -z | xargs -0 sha256sum)"
	echo "$(wc -l <src.sha) files compared"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	check "sha256 equal read back from the device (caches dropped)" bash -c "mountpoint -q /mnt/cx && diff -q src.sha <(cd /mnt/cx/tree && find . -type f -print0 | sort -z | xargs -0 sha256sum)"
	check "umount" umount /mnt/cx
	check "nvme disconnect" bash -c "nvme disconnect -n $NQN | grep -q 'disconnected 1 controller'"
	# the largest queue nvme-rdma takes: 128 on 6.1, 256 on 6.12 (NVME_RDMA_MAX_QUEUE_SIZE)
	qs=256
	case $(uname -r) in 6.1.*) qs=128 ;; esac
	check "nvme connect --nr-io-queues 1 --queue-size $qs" conn --nr-io-queues 1 --queue-size $qs
	check "the I/O queue has $qs entries" bash -c "[ \"\$(cat /sys/class/nvme/nvme*/sqsize | head -n1)\" = $((qs - 1)) ]"
	check "namespace 1 back" wait_ns 1
	ns1=$(ns_dev 1)
	check "mount ns1 again" mount "$ns1" /mnt/cx
	check "sha256 equal after the reconnect" bash -c "mountpoint -q /mnt/cx && diff -q src.sha <(cd /mnt/cx/tree && find . -type f -print0 | sort -z | xargs -0 sha256sum)"
	umount /mnt/cx
	nvme disconnect -n $NQN >/dev/null
	check "nvme connect --nr-poll-queues 1" conn --nr-poll-queues 1
	check "namespace 2 back" wait_ns 2
	dmesg | grep -q 'poll queues' && dmesg | grep 'poll queues' | tail -n1
	check "fio verify 4 KiB QD32 with a poll queue" fio_verify ns2_poll "$(ns_dev 2)" 4k 32 1

	# rmmod cxib with the controller connected: nvme-rdma removes the controller
	check "rmmod cxib with a controller connected" timeout 120 rmmod cxib
	gone() { wait_for 30 no_nvme_ctrl; }
	check "the controller is removed" gone
	check "modprobe cxib" modprobe cxib
	check "ib0 back with carrier" ipoib_up 120
	check "port ACTIVE again" sm_wait_active 60
	check "no nvme QP, MR or CQ left" nvme_left
	modprobe -r nvme-rdma
	touch host.done
fi
meet end 300
dmesg >dmesg.txt
check "no WARN/BUG/Oops/hung task in dmesg" no_splat dmesg.txt
exit $fail
