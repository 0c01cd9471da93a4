#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=1500 cmdtrace=compare
#
# mlx5: the guest kernel's stock mlx5_core + mlx5_ib as a second, independent host of the
# model, and interop between it and cxib.  node1 runs cxib, node2 the stock drivers
# (blacklisted in the image, loaded by name), cabled together, opensm on node1.  In a
# cxib lab (make check's, shared with the other scenarios) node2 moves itself from cxib
# to mlx5 first and back at the end; a lab booted with --driver mixed starts it on mlx5.
# The stock driver's WQE, CQE, doorbell and BlueFlame code is not ours, so whatever fails
# here is a model bug or a cxib bug.
#
#  0. Each node marks its command trace "start driver=<its driver>" (node2 after cxib is
#     unloaded, before mlx5_core probes) and, at the very end, "stop": the host compares
#     what lies between.
#  1. Each node's driver bound the function and registered its device (cxib_0, mlx5_0)
#     with port 1 ACTIVE under opensm: a LID from the SM and the SM's LID;
#     ibv_devinfo -v (libmlx5), ibstat and rdma link show it; on the mlx5 node, every
#     firmware command mlx5_core issued from probe on succeeded (no mlx5_cmd_out_err
#     line) and the kernel logged no WARN/BUG/Oops since the scenario began.
#  2. The pingpong and perftest scenarios (libibverbs + libmlx5 on both sides) and the
#     kverbs kernel client, first with node1 (cxib) serving and node2 (mlx5) the client,
#     then the other way round: each case's data crosses the cable between the two
#     drivers in both directions.  mlx5_ib posts no atomics from kernel verbs (wr.c), so
#     the kverbs atomics skip when the mlx5 node posts them.
#
#  3. Both drivers are unloaded and loaded again, and the phases are marked in each node's
#     command trace (cxlab_mark: teardown, bringup, end).  After the scenario the host
#     compares the two traces (cmdtrace=compare: scripts/lib/cmdtrace.py) — the bring-up
#     and teardown command sequences and the inputs of every QP/CQ/MKey/SRQ/EQ creation
#     and QP transition between the start and stop marks — and fails on any difference
#     that Documentation/silicon.md does not explain.
#  4. A node that moved to mlx5 goes back to cxib, its port ACTIVE again.
#
# Results: each run in its own directory (cxib-serves/, mlx5-serves/; each with
# pingpong/, perftest/, kverbs/), a line per run here, the verdict at the end.
set -u
cd "$CXLAB_RESULTS" || exit 1
# shellcheck source=check.sh
. /cxlab/e2e/check.sh
has() { grep -qE "$1" "$2"; } # has REGEX FILE

fn=$(lspci -D -n -d 15b3: | awk 'NR==1 {print $1}')
dmesg_from=$(dmesg | wc -l) # the kernel log of this scenario: the lines after these
dmesg_new() { dmesg | tail -n +$((dmesg_from + 1)); }
# active DEV [SECONDS]: port 1 of DEV is ACTIVE (the SM sweeps every few seconds)
active() {
	local end=$((SECONDS + ${2:-60}))
	until [ "$(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null)" = "4: ACTIVE" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# --- 0. the driver of this node: the even nodes run the stock mlx5 ------------------------
# The traces compared are to hold the drivers' own commands.  ib_ipoib, left loaded by an
# earlier scenario or by udev (rdma-load-modules@infiniband under systemd), would add its
# QPs, SRQ and multicast attaches to them — and re-join its groups on node1 when node2's
# move takes the link down — so it goes first, on both nodes.  The IPoIB scenarios load
# it again themselves (ipoib_lib.sh).
if grep -q '^ib_ipoib ' /proc/modules; then
	check "modprobe -r ib_ipoib (its objects are not the drivers' to compare)" \
		timeout 120 modprobe -r ib_ipoib
fi
drv=${CXLAB_DRIVER:-cxib}
pos=$(echo "$CXLAB_NODES" | tr ' ' '\n' | grep -nx "$CXLAB_NODE" | cut -d: -f1)
moved=0
if [ "$drv" = cxib ] && [ $((${pos:-1} % 2)) = 0 ]; then
	check "modprobe -r cxib (this node moves to the stock mlx5)" timeout 300 modprobe -r cxib
	moved=1
	drv=mlx5
fi
check "command trace marked: start driver=$drv" cxlab_mark "start driver=$drv"
if [ $moved = 1 ]; then
	check "modprobe mlx5_core" modprobe mlx5_core
	check "modprobe mlx5_ib" modprobe mlx5_ib
	export CXLAB_DRIVER=mlx5 # the sub-scenarios below use mlx5_0
fi
case $drv in
mlx5) ibdev=mlx5_0 pcidrv=mlx5_core ;;
*) ibdev=cxib_0 pcidrv=cxib ;;
esac
sys=/sys/class/infiniband/$ibdev

# Both nodes on their drivers before anything is checked: node2's move takes node1's port
# down and up again (the cable loses its far end), so each node waits for the other's word,
# then for its own port to be ACTIVE again under the SM.
active $ibdev 60
touch drivers.ready
for peer in $CXLAB_NODES; do
	[ "$peer" = "$CXLAB_NODE" ] && continue
	check "$peer has its driver up" wait_file "/cxlab/results/$CXLAB_JOB/$peer/drivers.ready" 180
done
sleep 1 # a port that went down with the peer's move has noticed it by now

# --- 1. the device under this node's driver ------------------------------------------------
bound=$(basename "$(readlink "/sys/bus/pci/devices/$fn/driver" 2>/dev/null)" 2>/dev/null)
check "$fn is bound to $pcidrv ($CXLAB_NODE runs $drv)" test "$bound" = "$pcidrv"
active $ibdev 60
check "$ibdev registered for $fn" test "$(basename "$(readlink -f $sys/device)")" = "$fn"
check "$ibdev port 1 is ACTIVE ($(cat $sys/ports/1/state 2>/dev/null))" \
	test "$(cat $sys/ports/1/state 2>/dev/null)" = "4: ACTIVE"
lid=$(($(cat $sys/ports/1/lid 2>/dev/null || echo 0)))
smlid=$(($(cat $sys/ports/1/sm_lid 2>/dev/null || echo 0)))
check "the SM gave it LID $lid and is at LID $smlid" test "$lid" -gt 0 -a "$smlid" -gt 0
ibv_devinfo -v -d $ibdev >devinfo.txt 2>&1
check "ibv_devinfo -v opens $ibdev (libmlx5)" has "^hca_id:[[:space:]]+$ibdev" devinfo.txt
check "ibv_devinfo: port 1 PORT_ACTIVE" has 'state:[[:space:]]+PORT_ACTIVE' devinfo.txt
ibstat $ibdev >ibstat.txt 2>&1
check "ibstat: Active, base lid $lid" bash -c "grep -q 'State: Active' ibstat.txt &&
	grep -q 'Base lid: $lid\$' ibstat.txt"
rdma link show >rdma-link.txt 2>&1
check "rdma link: $ibdev/1 state ACTIVE" has "^link $ibdev/1 .*state ACTIVE" rdma-link.txt
dmesg_new >dmesg-probe.txt
if [ "$drv" = mlx5 ]; then
	check "mlx5_core probed the function (firmware version logged)" \
		has "mlx5_core $fn: firmware version: " dmesg-probe.txt
	check "no firmware command of mlx5_core failed" \
		bash -c "! grep -E 'mlx5_cmd_out_err|cmd_work_handler|FW did not return' dmesg-probe.txt"
fi
check "no WARN/BUG/Oops in the kernel log" \
	no_splat dmesg-probe.txt

# --- 2. interop: both scenarios and the kernel client, each direction ---------------------
# run_sub DIR SCENARIO ENV...: one scenario in DIR with its own lockstep directory
run_sub() {
	local dir=$1 scen=$2 rc
	shift 2
	mkdir -p "$dir/$scen"
	(
		export CXLAB_RESULTS=$PWD/$dir/$scen "$@"
		cd "$CXLAB_RESULTS" && bash "/cxlab/e2e/$scen.sh"
	) >"$dir/$scen.log" 2>&1
	rc=$?
	echo "     $(grep -E '^summary |summary passed=' "$dir/$scen.log" | tail -n 1)"
	# its failed cases, indented under it (cxlab's table names the first one)
	grep -hE '^(FAIL|xfail)' "$dir/$scen/results.txt" 2>/dev/null | sed 's/^/     /'
	return $rc
}

for way in cxib-serves mlx5-serves; do
	swap=0
	[ $way = mlx5-serves ] && swap=1
	check "$way: pingpong" run_sub $way pingpong E2E_SWAP=$swap E2E_SUBDIR=$way/pingpong
	check "$way: perftest" run_sub $way perftest E2E_SWAP=$swap E2E_SUBDIR=$way/perftest
	check "$way: kverbs" run_sub $way kverbs KVERBS_SWAP=$swap
done

# --- 3. teardown and bring-up again, each phase marked in the command trace --------------
case $drv in
mlx5) mods="mlx5_ib mlx5_core" ;;
*) mods=cxib ;;
esac
# unloaded: the function has no driver and the device is gone
unloaded() { [ ! -e "/sys/bus/pci/devices/$fn/driver" ] && [ ! -e "$sys" ]; }
# loaded: the device is registered again
registered() { WAIT_POLL=0.2 wait_for 120 test -e "$sys/ports/1/state"; }
sleep 1 # the last run's user processes and their commands are over
check "command trace marked: teardown" cxlab_mark teardown
# shellcheck disable=SC2086 # the module list
check "modprobe -r $mods" timeout 300 modprobe -r $mods
check "$fn has no driver and $ibdev is gone" unloaded
check "command trace marked: bringup" cxlab_mark bringup
# in reverse order; mlx5 only by name (the image blacklists its aliases)
for m in $(echo "$mods" | tr ' ' '\n' | tac); do
	check "modprobe $m" modprobe "$m"
done
check "$ibdev registered again" registered
sleep 2 # the port's events after registration belong to the bring-up
check "command trace marked: end" cxlab_mark end
dmesg_new >dmesg-end.txt
check "no WARN/BUG/Oops after the reload" \
	no_splat dmesg-end.txt
if [ "$drv" = mlx5 ]; then
	check "no firmware command of mlx5_core failed, reload included" \
		bash -c "! grep -E 'mlx5_cmd_out_err|cmd_work_handler|FW did not return' dmesg-end.txt"
fi

# --- 4. back to cxib -------------------------------------------------------------------
check "command trace marked: stop" cxlab_mark stop
if [ $moved = 1 ]; then
	check "modprobe -r mlx5_ib mlx5_core (back to cxib)" timeout 300 modprobe -r mlx5_ib mlx5_core
	check "modprobe cxib" modprobe cxib
	check "cxib_0 port 1 ACTIVE again" active cxib_0 90
fi

echo "summary mlx5 node=$CXLAB_NODE driver=$drv passed=$npass failed=$nfail"
exit $fail
