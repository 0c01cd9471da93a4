# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tests/e2e/nvmeof_lib.sh: the NVMe-oF/RDMA target and host pieces the nvmeof scenarios share.
# Sourced after sm_lib.sh (check, wait_file) and ipoib_lib.sh (MY_IP, PEER_IP).  One node is
# the target, the other the host (each scenario says which); the subsystem is $NQN on port
# 4420 of the target's IPoIB address.
#
#   target:  nvmet_modules [ARGS]   null_blk, nvmet, nvmet-rdma (ARGS: its parameters)
#            mk_nullb               the memory-backed null_blk cxnull (256 MiB); sets NB
#            mk_subsys FILE...      subsystem $NQN: namespace 1 $NB, then one per FILE/disk
#            port_add / port_del    RDMA port 1 on $MY_IP:4420 linked to / removed from $NQN
#            target_down            port, subsystem and null_blk gone
#            target_end SECONDS     once the host is done (host.done, up to SECONDS): nothing
#                                   of nvmet left, target torn down, modules unloaded
#   host:    host_start             nvme-rdma loaded, the target ready
#            conn ARGS...           nvme connect -t rdma to the target
#            ns_dev ID / wait_ns ID the block device of namespace ID (appears)
#            fio_verify NAME DEV BS IODEPTH JOBS [SIZE]
#                                   random writes then crc32c verification; fails on any
#                                   error or on a read-back of other than what was written
#   both:    nvme_res qp|mr|cq|srq  how many the nvme modules hold on cxib_0
#            nvme_left              none left (QP, MR, CQ, SRQ), within 10 s

NQN=nqn.2026-12.org.cxib:cxtest
CFS=/sys/kernel/config

nvme_res() {
	# QPs are rdma_cm's (rdma_create_qp() names them so; nothing else uses rdma_cm in these
	# scenarios); CQs, MRs and SRQs carry the module's own name (nvme_rdma, nvmet_rdma)
	if [ "$1" = qp ]; then
		rdma res show qp 2>/dev/null | grep -c 'comm \[rdma_cm\]'
	else
		rdma res show "$1" 2>/dev/null | grep -cE 'comm \[(nvme|nvmet)'
	fi
}

no_nvme_ctrl() { ! ls /sys/class/nvme/nvme* >/dev/null 2>&1; }
nvme_none() { [ "$(nvme_res qp)$(nvme_res mr)$(nvme_res cq)$(nvme_res srq)" = 0000 ]; }
nvme_left() {
	local r
	wait_for 10 nvme_none && return 0
	for r in qp mr cq srq; do rdma res show $r | grep -E 'comm \[(rdma_cm|nvme|nvmet)'; done
	return 1
}

nvmet_modules() {
	mountpoint -q $CFS || mount -t configfs none $CFS
	modprobe null_blk nr_devices=0 && modprobe nvmet && modprobe nvmet-rdma "$@"
}

mk_nullb() {
	mkdir $CFS/nullb/cxnull &&
		echo 1 >$CFS/nullb/cxnull/memory_backed &&
		echo 256 >$CFS/nullb/cxnull/size &&
		echo 1 >$CFS/nullb/cxnull/power || return 1
	# the disk is named after the configfs item on newer kernels, nullb<index> on older
	NB=/dev/cxnull
	[ -e /sys/block/cxnull ] || NB=/dev/nullb$(cat $CFS/nullb/cxnull/index 2>/dev/null)
	test -b "$NB"
}

mk_subsys() {
	local s=$CFS/nvmet/subsystems/$NQN n=1 dev
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" || return 1
	for dev in "$NB" "$@"; do
		mkdir "$s/namespaces/$n" && echo "$dev" >"$s/namespaces/$n/device_path" &&
			echo 1 >"$s/namespaces/$n/enable" || return 1
		n=$((n + 1))
	done
}

port_add() {
	local pt=$CFS/nvmet/ports/1
	mkdir "$pt" && echo rdma >"$pt/addr_trtype" && echo ipv4 >"$pt/addr_adrfam" &&
		echo "$MY_IP" >"$pt/addr_traddr" && echo 4420 >"$pt/addr_trsvcid" &&
		# 6.12's port takes queues of up to 256 entries when asked (default 128); 6.1's
		# has no such attribute and stays at 128
		{ [ ! -e "$pt/param_max_queue_size" ] || echo 256 >"$pt/param_max_queue_size"; } &&
		ln -s "$CFS/nvmet/subsystems/$NQN" "$pt/subsystems/$NQN"
}

port_del() {
	rm -f $CFS/nvmet/ports/1/subsystems/$NQN && rmdir $CFS/nvmet/ports/1
}

target_down() {
	[ ! -e $CFS/nvmet/ports/1 ] || port_del
	rmdir $CFS/nvmet/subsystems/$NQN/namespaces/* $CFS/nvmet/subsystems/$NQN
	echo 0 >$CFS/nullb/cxnull/power
	rmdir $CFS/nullb/cxnull
	test ! -e $CFS/nvmet/subsystems/$NQN
}

target_end() {
	wait_file "$PEERDIR/host.done" "$1"
	check "no nvmet QP, MR, CQ or SRQ left after the host is gone" nvme_left
	check "target torn down" target_down
	check "rmmod nvmet-rdma nvmet" modprobe -r nvmet-rdma nvmet
}

host_start() {
	check "modprobe nvme-rdma" modprobe nvme-rdma
	wait_file "$PEERDIR/target.ready" 120
}

conn() { timeout 60 nvme connect -t rdma -a "$PEER_IP" -s 4420 -n $NQN "$@"; }

ns_dev() { # the device names count in scan order, which need not follow the IDs
	local b
	for b in /sys/block/nvme*; do
		[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[ "$(cat "$b/nsid" 2>/dev/null)" = "$1" ] && { echo "/dev/${b##*/}"; return; }
	done
}

ns_is_blk() { [ -b "$(ns_dev "$1")" ]; }
wait_ns() { wait_for 10 ns_is_blk "$1"; }

fio_verify() {
	timeout 400 fio --name="$1" --filename="$2" --rw=randwrite --bs="$3" --iodepth="$4" \
		--numjobs="$5" --size="${6:-16M}" --offset_increment="${6:-16M}" --ioengine=libaio \
		--direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
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
