#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=900
#
# NVMe-oF/RDMA between the lab's nodes with the stock nvmet-rdma target (node1) and the
# stock nvme-rdma host (node2), over rdma_cm on cxib_0's IPoIB address, under opensm.
#
#   target  configfs: subsystem cxtest with namespace 1 a memory-backed null_blk (data is
#           kept, so it can be verified) and namespace 2 a file on node1's disk; port 4420
#           on 198.51.100.1 (addr_trtype rdma, addr_adrfam ipv4)
#   host    nvme discover; nvme connect; nvme list; fio --verify=crc32c random write+verify
#           at 4 KiB and 128 KiB (iodepth 1 and 32, two jobs); mkfs.ext4, a file tree copied
#           in, sha256 compared, unmounted, disconnected, reconnected, compared again;
#           connect with --nr-io-queues 1 --queue-size 128 (6.1) or 256 (6.12) and with
#           --nr-poll-queues 1;
#           rmmod cxib with a controller connected (the controller goes, no hung task),
#           modprobe cxib; no QP, MR or CQ of nvme left afterwards
#
# What is not here yet (issue 12): target-side failures during I/O, SRQ on the target,
# large fast-registration page lists, the three-way benchmark.
set -u
. /cxlab/e2e/sm_lib.sh
. /cxlab/e2e/ipoib_lib.sh

ipoib_start
check "ib0 up with carrier" ipoib_up 60
srv=${CXLAB_NODES%% *}
NQN=nqn.2026-12.org.cxib:cxtest
CFS=/sys/kernel/config
meet up

nvme_res() { # QPs/MRs/CQs held by the nvme modules
	rdma res show "$1" 2>/dev/null | grep -cE 'comm \[(nvme|nvmet)'
}
fio_verify() { # fio_verify NAME DEV BS IODEPTH JOBS
	timeout 240 fio --name="$1" --filename="$2" --rw=randwrite --bs="$3" --iodepth="$4" \
		--numjobs="$5" --size=16M --offset_increment=16M --ioengine=libaio --direct=1 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
		--output-format=json --output="$1.json" >"$1.txt" 2>&1 || return 1
	python3 - "$1.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
j = json.loads(text[text.index("{"):])["jobs"][0]  # fio may print a warning line first
w, r = j["write"], j["read"]
print(f"  wrote {w['io_bytes']} B ({w['iops']:.0f} IOPS), read back {r['io_bytes']} B, "
      f"errors {j['error']}")
sys.exit(0 if j["error"] == 0 and w["io_bytes"] > 0 and r["io_bytes"] == w["io_bytes"] else 1)
PY
}

if [ "$CXLAB_NODE" = "$srv" ]; then
	# ---- target ------------------------------------------------------------------------------
	mountpoint -q $CFS || mount -t configfs none $CFS
	check "modprobe null_blk nvmet nvmet-rdma" bash -c \
		"modprobe null_blk nr_devices=0 && modprobe nvmet && modprobe nvmet-rdma"
	mk_nullb() {
		mkdir $CFS/nullb/cxnull &&
		echo 1 >$CFS/nullb/cxnull/memory_backed &&
		echo 256 >$CFS/nullb/cxnull/size &&
		echo 1 >$CFS/nullb/cxnull/power
	}
	check "memory-backed null_blk, 256 MiB" mk_nullb
	# the disk is named after the configfs item on newer kernels, nullb<index> on older
	nb=/dev/cxnull
	[ -e /sys/block/cxnull ] || nb=/dev/nullb$(cat $CFS/nullb/cxnull/index 2>/dev/null)
	check "null_blk disk $nb exists" test -b "$nb"
	check "file for namespace 2" truncate -s 256M /var/tmp/cxns2.img
	mk_target() {
		local s=$CFS/nvmet/subsystems/$NQN pt=$CFS/nvmet/ports/1
		mkdir "$s" && echo 1 >"$s/attr_allow_any_host" &&
		mkdir "$s/namespaces/1" && echo "$nb" >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/enable" &&
		mkdir "$s/namespaces/2" && echo /var/tmp/cxns2.img >"$s/namespaces/2/device_path" &&
		echo 1 >"$s/namespaces/2/enable" &&
		mkdir "$pt" && echo rdma >"$pt/addr_trtype" && echo ipv4 >"$pt/addr_adrfam" &&
		echo "$MY_IP" >"$pt/addr_traddr" && echo 4420 >"$pt/addr_trsvcid" &&
		# 6.12's port takes queues of up to 256 entries when asked (default 128); 6.1's
		# has no such attribute and stays at 128
		{ [ ! -e "$pt/param_max_queue_size" ] || echo 256 >"$pt/param_max_queue_size"; } &&
		ln -s "$s" "$pt/subsystems/$NQN"
	}
	check "nvmet subsystem, 2 namespaces, RDMA port $MY_IP:4420" mk_target
	check "nvmet-rdma listens" bash -c "dmesg | grep -q 'nvmet_rdma: enabling port 1 ($MY_IP:4420)'"
	touch target.ready
	wait_file "$PEERDIR/host.done" 600
	left() { for _ in $(seq 100); do [ "$(nvme_res qp)" = 0 ] && return 0; sleep 0.1; done; return 1; }
	check "no nvmet QP left after the host is gone" left
	rm -f $CFS/nvmet/ports/1/subsystems/$NQN
	rmdir $CFS/nvmet/ports/1 $CFS/nvmet/subsystems/$NQN/namespaces/* $CFS/nvmet/subsystems/$NQN
	check "target torn down" test ! -e $CFS/nvmet/subsystems/$NQN
	echo 0 >$CFS/nullb/cxnull/power
	rmdir $CFS/nullb/cxnull
	check "rmmod nvmet-rdma nvmet" modprobe -r nvmet-rdma nvmet
else
	# ---- host --------------------------------------------------------------------------------
	check "modprobe nvme-rdma" modprobe nvme-rdma
	wait_file "$PEERDIR/target.ready" 120
	timeout 60 nvme discover -t rdma -a "$PEER_IP" -s 4420 >discover.txt 2>&1
	check "nvme discover -t rdma lists $NQN" has "subnqn: *$NQN" discover.txt
	conn() { timeout 60 nvme connect -t rdma -a "$PEER_IP" -s 4420 -n $NQN "$@"; }
	ns_dev() { # the block device of namespace ID $1 (one controller at a time here); the
		   # device names count in scan order, which need not follow the IDs
		local b
		for b in /sys/block/nvme*; do
			[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
			[ "$(cat "$b/nsid" 2>/dev/null)" = "$1" ] && { echo "/dev/${b##*/}"; return; }
		done
	}
	wait_ns() { for _ in $(seq 100); do [ -b "$(ns_dev "$1")" ] && return 0; sleep 0.1; done; return 1; }
	check "nvme connect -t rdma" conn
	check "namespace 1 appears" wait_ns 1
	check "namespace 2 appears" wait_ns 2
	nvme list >list.txt 2>&1
	check "nvme list shows both namespaces" test "$(grep -c '/dev/nvme' list.txt)" -ge 2
	ns1=$(ns_dev 1)
	ns2=$(ns_dev 2)
	echo "namespaces: $ns1 $ns2"
	check "fio verify 4 KiB QD1 on ns1" fio_verify ns1_4k_qd1 "$ns1" 4k 1 1
	check "fio verify 4 KiB QD32 x2 jobs on ns1" fio_verify ns1_4k_qd32 "$ns1" 4k 32 2
	check "fio verify 128 KiB QD32 x2 jobs on ns1" fio_verify ns1_128k_qd32 "$ns1" 128k 32 2
	check "fio verify 1 MiB QD4 on ns1" fio_verify ns1_1m_qd4 "$ns1" 1m 4 1
	check "fio verify 128 KiB QD1 on ns2 (file)" fio_verify ns2_128k_qd1 "$ns2" 128k 1 1
	check "fio verify 4 KiB QD32 on ns2 (file)" fio_verify ns2_4k_qd32 "$ns2" 4k 32 1

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
	gone() { for _ in $(seq 300); do ! ls /sys/class/nvme/nvme* >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
	check "the controller is removed" gone
	check "modprobe cxib" modprobe cxib
	check "ib0 back with carrier" ipoib_up 120
	check "port ACTIVE again" sm_wait_active 60
	check "no nvme QP, MR or CQ left" bash -c \
		'[ "$(rdma res show qp | grep -c nvme)" = 0 ] && [ "$(rdma res show mr | grep -c nvme)" = 0 ] && [ "$(rdma res show cq | grep -c nvme)" = 0 ]'
	modprobe -r nvme-rdma
	touch host.done
fi
meet end 300
dmesg >dmesg.txt
check "no WARN/BUG/Oops/hung task in dmesg" bash -c \
	"! grep -nE 'WARNING:|BUG:|Oops|Call Trace|UBSAN|KASAN|lockdep|blocked for more than' dmesg.txt"
exit $fail
