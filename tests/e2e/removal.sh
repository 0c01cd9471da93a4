#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=1200
#
# removal: node2's cxib taken away while traffic runs, in the two ways a host does it and
# by a firmware failure, and brought back.  node1 serves, node2 is the client and loses its
# device.
#
#   ways       rmmod     rmmod cxib; back with modprobe cxib
#              unplug    the HCA hot-unplugged from its root port (cxlab fault remove:
#                        QEMU's device_del, after which pciehp unbinds cxib); back with
#                        cxlab fault add, which pciehp probes
#              fatal     the firmware dies (cxlab fault fatal 0x1): cxib's recovery
#                        unregisters the device, resets the function and registers a new
#                        one by itself
#   workloads  perftest  ib_write_bw (user verbs), 60 s by duration
#              rping     rping -V over the IPoIB addresses (rdma_cm, data verified)
#              iperf3    TCP over ib0
#              nvme      fio random writes with crc32c verification on an NVMe-oF/RDMA
#                        namespace that node1 exports (null_blk)
#              kverbs    the kverbs module's RC cases round after round (kernel verbs;
#                        an ib_client, whose remove callback stops the run)
#
# Case WAY-WORKLOAD passes when the removal ends within 60 s (fatal: the recovery, within
# 90 s) with the workload still running; afterwards no task is stuck (none in D state; the
# hung-task detector runs at 30 s), cxib's device is gone and nothing of it is left (`rdma
# res`; fatal: a new device has taken its place); a user process (perftest, rping, iperf3)
# is stopped within 10 s, fio ends by itself with I/O errors (nvme-rdma deleted its
# controller) within 60 s, kverbs's run ends by itself within 10 s.  Then cxib comes back,
# its port is ACTIVE again (WAY-WORKLOAD-active) and an RC pingpong between the nodes
# passes (WAY-WORKLOAD-back).  After an nvme case the host connects again and fio writes
# and verifies 16 MiB (WAY-nvme-verify): the stock nvme-rdma deletes a controller whose
# device is unregistered, so a new connection, not a reconnect, brings the namespace back.
# The kernel log must hold no warning, BUG, lockdep or sanitizer report (e2e_finish) and
# the model must report every page returned (cxlab checks its log after every job).
#
# E2E_REMOVAL=full runs the fifteen cases (make check-e2e-debug); by default the scenario
# runs rmmod-perftest, unplug-nvme and fatal-nvme, each way once, with user and kernel
# consumers (make check; user verbs under a fatal error are faults's "fatal" case).
# E2E_CASES selects cases by name.
set -u
cd "$CXLAB_RESULTS" || exit 1
# shellcheck source=lib.sh
. /cxlab/e2e/lib.sh
# shellcheck source=ipoib_lib.sh
. /cxlab/e2e/ipoib_lib.sh
# shellcheck source=nvmeof_lib.sh
. /cxlab/e2e/nvmeof_lib.sh

e2e_setup || { echo "FAIL setup: $E2E_SETUP_REASON"; e2e_finish removal; exit 1; }
ipoib_setup
CLI=$(echo "$CXLAB_NODES" | awk '{ print $2 }')
SYS=/sys/class/infiniband/$DEV
port=$E2E_PORT
hung_was=$(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || echo 120)
echo 30 >/proc/sys/kernel/hung_task_timeout_secs

if [ "${E2E_REMOVAL:-quick}" = full ]; then
	cases=
	for way in rmmod unplug fatal; do
		for wl in perftest rping iperf3 nvme kverbs; do cases="$cases $way-$wl"; done
	done
else
	cases="rmmod-perftest unplug-nvme fatal-nvme"
fi

# kverbs: the module, its arguments (the RC cases, many rounds: it runs until stopped) and
# its end (unloaded, what it said kept as CASE.kverbs).
KO=/cxlab/modules/$(uname -r)/kverbs.ko
KV_ARGS=(role="$ROLE" dev="$DEV" cases="rc_*" rounds=1000 wc_timeout_ms=30000 ctl_timeout_s=60)
kv_end() {
	dmesg | sed -n 's/^\[[ 0-9.]*\] kverbs: //p' | tail -n 5 >"$c.kverbs"
	rmmod kverbs 2>/dev/null
}

# ---- node2's side ----------------------------------------------------------------------
no_dstate() { ! ps -eo stat= | grep -q '^D'; }
no_device() { [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; }
dev_back() { port_active "$SYS"; }
# the kernel log since the case began (from its line MARK on)
since_mark() { dmesg | sed -n "/$MARK\$/,\$p"; }
# ... says the recovery is done
recovered() { since_mark | grep -q 'recovery: device back'; }

take_away() { # take_away WAY: the device goes
	case $1 in
	rmmod) timeout 60 rmmod cxib ;;
	unplug) cxlab_fault "$CLI" remove ;;
	fatal) fatal_recovered ;;
	esac
}

# cxib leaves a function dead that fails again within recovery_grace_ms of its last
# recovery: the fatal cases follow each other faster than that.
GRACE=/sys/module/cxib/parameters/recovery_grace_ms
fatal_recovered() {
	local grace rc
	grace=$(cat "$GRACE")
	echo 0 >"$GRACE"
	cxlab_fault "$CLI" fatal 0x1 && wait_for 90 recovered
	rc=$?
	echo "$grace" >"$GRACE"
	return "$rc"
}

gone() { # gone WAY: nothing of the device is left (fatal: a new one has replaced it)
	[ "$1" = fatal ] && return 0
	no_device || { echo "$(ls /sys/class/infiniband | head -n 1) still there"; return 1; }
	[ -z "$(rdma res show 2>/dev/null)" ] ||
		{ echo "rdma res still shows: $(rdma res show | head -n 1)"; return 1; }
}

bring_back() { # bring_back WAY: the device returns (the probe is pciehp's for unplug)
	case $1 in
	rmmod) modprobe cxib ;;
	unplug) cxlab_fault "$CLI" add ;;
	fatal) true ;;
	esac
}

nvme_verify() { # after an nvme case: a new connection, 16 MiB written and verified
	local t0=$SECONDS
	# the new ib0 has no address yet
	if ipoib_up 60 && conn >"$c.conn2" 2>&1 && wait_ns 1 && fio_verify "$c-verify" "$(ns_dev 1)" 4k 16 1 16M
	then
		e2e_result "$c-verify" pass "connected again, 16 MiB written and verified" \
			$((SECONDS - t0))
	else
		e2e_result "$c-verify" FAIL "$(e2e_lasterr "$c.conn2") / $(e2e_lasterr "$c-verify.txt")" \
			$((SECONDS - t0))
	fi
	nvme disconnect -n "$NQN" >/dev/null 2>&1
}

client_start() { # client_start WORKLOAD: the workload's client, in the background (PID)
	local ns
	ns=$(ns_dev 1)
	case $1 in
	perftest) exec ib_write_bw -d "$DEV" -i 1 -F -D 60 -p "$port" "$E2E_SERVER_ADDR" ;;
	rping) exec rping -c -a "$PEER_IP" -p "$port" -V -C 1000000 -S 4096 ;;
	iperf3) exec iperf3 -c "$PEER_IP" -p "$port" -t 60 ;;
	nvme) exec fio --name="$c" --filename="$ns" --rw=randwrite --bs=4k --iodepth=16 \
		--ioengine=libaio --direct=1 --size=64M --loops=1000 --verify=crc32c ;;
	kverbs) exec insmod "$KO" "${KV_ARGS[@]}" port="$port" peer="$E2E_SERVER_ADDR" ;;
	esac >"$c.out" 2>&1 &
	PID=$!
}

# the namespace has completed writes: fio runs on the block device (a slow guest may take
# seconds to get there, and fio given a path that is no longer a block device would lay out
# a file of that name instead)
ns_writing() {
	local b n
	b=$(ns_dev 1)
	[ -n "$b" ] || return 1
	n=$(awk '{ print $5 }' "/sys/block/${b#/dev/}/stat" 2>/dev/null)
	[ "${n:-0}" -gt 0 ]
}

client_case() { # client_case WAY WORKLOAD
	local way=$1 wl=$2 t0 secs rc why=''
	MARK="removal: case $c begins"
	echo "$MARK" >/dev/kmsg
	ipoib_up 60 >/dev/null 2>&1
	wait_file "$PEERDIR/$c.ready" 60
	# a regular file where a namespace's node belongs (an earlier fio's, above) hides it
	[ "$wl" != nvme ] || find /dev -maxdepth 1 -name 'nvme*' -type f -delete
	if [ "$wl" = nvme ] && { ! conn >"$c.conn" 2>&1 || ! wait_ns 1; }; then
		e2e_result "$c" FAIL "nvme connect: $(e2e_lasterr "$c.conn")" 0
		put_file "$c.removed" x
		return 1
	fi
	client_start "$wl"
	sleep 4
	[ "$wl" != nvme ] || wait_for 60 ns_writing
	if ! kill -0 "$PID" 2>/dev/null; then
		wait "$PID"
		e2e_result "$c" FAIL "the workload ended (rc $?) before the removal: $(e2e_lasterr "$c.out")" 0
		put_file "$c.removed" x
		return 1
	fi
	t0=$SECONDS
	take_away "$way" >"$c.take" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
	[ "$rc" = 0 ] || why="the removal failed (rc $rc): $(e2e_lasterr "$c.take")"
	[ -n "$why" ] || [ "$secs" -le 60 ] || [ "$way" = fatal ] || why="the removal took $secs s"
	[ -n "$why" ] || why=$(gone "$way")
	if [ "$wl" = nvme ]; then
		# nvme-rdma deleted the controller: fio's I/O fails and it ends by itself
		wait_for 60 exited "$PID" || why=${why:-"fio still runs 60 s after the removal"}
	elif [ "$wl" = kverbs ]; then
		# the removal waited for the run to stop: insmod returns at once
		wait_for 10 exited "$PID" || why=${why:-"kverbs still runs 10 s after the removal"}
	else
		kill "$PID" 2>/dev/null
		wait_for 10 exited "$PID" || why=${why:-"$wl did not end within 10 s of SIGTERM"}
	fi
	kill -9 "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	echo "$wl ended with $?: $(e2e_lasterr "$c.out")"
	[ "$wl" != kverbs ] || kv_end
	no_dstate || why=${why:-"a task is in D state: $(ps -eo pid,stat,comm | awk '$2 ~ /^D/' | head -n 3 | tr '\n' ' ')"}
	since_mark >"$c.dmesg"
	if grep -q 'blocked for more than' "$c.dmesg"; then
		why=${why:-"hung task: $(grep -m1 'blocked for more than' "$c.dmesg")"}
	fi
	if [ -n "$why" ]; then
		e2e_result "$c" FAIL "$why" "$secs"
	elif [ "$way" = fatal ]; then
		e2e_result "$c" pass "a new device after $secs s under $wl, nothing stuck" "$secs"
	else
		e2e_result "$c" pass "gone in $secs s under $wl, nothing left" "$secs"
	fi
	put_file "$c.removed" x
	t0=$SECONDS
	if bring_back "$way" >"$c.back" 2>&1 && wait_for 90 dev_back; then
		e2e_result "$c-active" pass "$DEV back, port ACTIVE $((SECONDS - t0)) s later" \
			$((SECONDS - t0))
	else
		e2e_result "$c-active" FAIL "not back after $((SECONDS - t0)) s: $(e2e_lasterr "$c.back")" \
			$((SECONDS - t0))
	fi
}

# ---- node1's side ----------------------------------------------------------------------
server_case() { # server_case WORKLOAD (nvme: the target is up already)
	local pid=
	case $1 in
	perftest) exec ib_write_bw -d "$DEV" -i 1 -F -D 60 -p "$port" ;;
	rping) exec rping -s -a "$MY_IP" -p "$port" -V -C 1000000 -S 4096 ;;
	iperf3) exec iperf3 -s -1 -p "$port" ;;
	kverbs) exec insmod "$KO" "${KV_ARGS[@]}" port="$port" ;;
	esac >"$c.out" 2>&1 &
	[ "$1" = nvme ] || pid=$!
	sleep 1
	put_file "$c.ready" x
	wait_file "$PEERDIR/$c.removed" 200
	[ -n "$pid" ] || return 0
	# kverbs: its peer's control connection broke, so its run ends; insmod cannot be killed
	[ "$1" = kverbs ] && wait_for 60 exited "$pid"
	kill "$pid" 2>/dev/null
	wait_for 10 exited "$pid" || kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ "$1" != kverbs ] || kv_end
}

# ---- the cases -------------------------------------------------------------------------
ipoib_up 60 >/dev/null 2>&1
target=0
for c in $cases; do
	e2e_wanted "$c" || continue
	way=${c%%-*}
	wl=${c#*-}
	port=$((port + 1))
	if [ "$wl" = nvme ] && [ "$target" = 0 ] && [ "$ROLE" = server ]; then
		nvmet_modules && mk_nullb && mk_subsys && port_add ||
			echo "the NVMe target did not come up"
		target=1
	fi
	if [ "$ROLE" = client ]; then
		[ "$wl" != nvme ] || modprobe nvme-rdma
		client_case "$way" "$wl"
		if [ "$wl" = nvme ]; then
			nvme disconnect -n "$NQN" >/dev/null 2>&1
			nvme_verify
		fi
	else
		server_case "$wl"
	fi
	# both ports ACTIVE again, then RC traffic between the nodes
	wait_for 90 dev_back
	port=$((port + 1))
	t0=$SECONDS
	e2e_pair "$c-back" 120 ibv_rc_pingpong -d "$DEV" -i 1 -n 20 -p "$port" -- \
		ibv_rc_pingpong -d "$DEV" -i 1 -n 20 -p "$port"
	e2e_verdict_both "$c-back" $((SECONDS - t0))
done
if [ "$target" = 1 ]; then
	target_down && modprobe -r nvmet-rdma nvmet
fi
[ "$ROLE" = client ] && modprobe -r nvme-rdma 2>/dev/null
echo "$hung_was" >/proc/sys/kernel/hung_task_timeout_secs
e2e_finish removal
