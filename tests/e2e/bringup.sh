#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=240
#
# Bring-up: cxib brings the firmware up through the command interface and registers an
# InfiniBand device that the stock tools see as a ConnectX HCA: ibv_devinfo (through the
# stock libmlx5), rdma dev/link (netlink), ibstat (libibumad, sysfs).  The device goes and
# comes back cleanly with the module, twice, with no error, WARN, BUG or lockdep report.
set -u
# shellcheck source=check.sh
. /cxlab/e2e/check.sh
has() { grep -qE "$1" "$2"; } # has REGEX FILE

dev=$(lspci -D -n -d 15b3:1013 | awk 'NR==1 {print $1}')
sys=/sys/class/infiniband/cxib_0

# Probe finished before the script started; wait a little for registration anyway.
wait_for 5 test -e $sys/ports/1/state
check "cxib_0 registered for $dev" test "$(basename "$(readlink -f $sys/device)")" = "$dev"

# The firmware revision the driver logged at probe is the one the device reports.
fw=$(dmesg | sed -n "s/.*cxib $dev: firmware \([0-9.]*\),.*/\1/p" | tail -n 1)
check "cxib logged the firmware version" test -n "$fw"

ibv_devinfo -v -d cxib_0 >devinfo.txt 2>&1
check "ibv_devinfo -v opens cxib_0 (libmlx5)" has '^hca_id:[[:space:]]+cxib_0' devinfo.txt
check "transport is InfiniBand" has 'transport:[[:space:]]+InfiniBand' devinfo.txt
check "fw_ver is the firmware's ($fw)" has "fw_ver:[[:space:]]+${fw//./\\.}\$" devinfo.txt
guid=$(sed -n 's/^[[:space:]]*node_guid:[[:space:]]*\([0-9a-f:]*\)$/\1/p' devinfo.txt)
check "node GUID is set ($guid)" bash -c "[ -n '$guid' ] && [ '$guid' != 0000:0000:0000:0000 ]"
check "node GUID matches sysfs" test "$guid" = "$(cat $sys/node_guid)"
check "vendor is Mellanox (0x02c9)" has 'vendor_id:[[:space:]]+0x02c9' devinfo.txt
check "board_id is reported" has 'board_id:[[:space:]]+[[:alnum:]_]+' devinfo.txt
check "one port" has 'phys_port_cnt:[[:space:]]+1$' devinfo.txt
check "capability limits from the firmware" bash -c \
	"grep -Eq 'max_qp:[[:space:]]+[1-9]' devinfo.txt && grep -Eq 'max_cqe:[[:space:]]+[1-9]' devinfo.txt"
check "at least one completion vector" has 'num_comp_vectors:[[:space:]]+[1-9]' devinfo.txt
check "port 1" has 'port:[[:space:]]+1$' devinfo.txt
check "port 1 link layer is InfiniBand" has 'link_layer:[[:space:]]+InfiniBand' devinfo.txt
check "port 1 is ACTIVE" has 'state:[[:space:]]+PORT_ACTIVE \(4\)' devinfo.txt
check "port 1 physical state is LINK_UP" has 'phys_state:[[:space:]]+LINK_UP' devinfo.txt
check "port 1 has a LID" bash -c "! grep -Eq 'port_lid:[[:space:]]+0$' devinfo.txt"
check "GID 0 is fe80::<node GUID>" has "GID\\[ *0\\]:[[:space:]]+fe80:0000:0000:0000:$guid" devinfo.txt
check "P_Key 0 is the default 0xffff" test "$(cat $sys/ports/1/pkeys/0)" = 0xffff

rdma dev >rdma-dev.txt 2>&1
rdma link >rdma-link.txt 2>&1
check "rdma dev lists cxib_0 as a CA" has '^[0-9]+: cxib_0: node_type ca ' rdma-dev.txt
check "rdma link lists cxib_0/1 ACTIVE" has '^link cxib_0/1 .*state ACTIVE physical_state LINK_UP' rdma-link.txt

ibstat cxib_0 >ibstat.txt 2>&1
check "ibstat: CA type, firmware" bash -c \
	"grep -q 'CA type: MT' ibstat.txt && grep -q 'Firmware version: $fw' ibstat.txt"
check "ibstat: port 1 Active, LinkUp, InfiniBand" bash -c \
	"grep -q 'State: Active' ibstat.txt && grep -q 'Physical state: LinkUp' ibstat.txt && \
	 grep -q 'Link layer: InfiniBand' ibstat.txt"
check "ibstat: rate is known" has 'Rate: [1-9]' ibstat.txt

check "interrupts: command EQ on MSI-X" grep -q "cxib-cmd@$dev" /proc/interrupts
check "modinfo documents the parameters" bash -c \
	"modinfo cxib | grep -q '^parm:.*cmd_timeout_ms:' && modinfo cxib | grep -q '^parm:.*init_timeout_ms:'"

for round in 1 2; do
	check "rmmod cxib (round $round)" rmmod cxib
	check "cxib_0 gone after rmmod" bash -c "! test -e $sys"
	check "modprobe cxib (round $round)" modprobe cxib
	wait_for 5 test -e $sys/ports/1/state
	check "cxib_0 back, same node GUID" test "$(cat $sys/node_guid 2>/dev/null)" = "$guid"
	check "port 1 ACTIVE again" test "$(cat $sys/ports/1/state 2>/dev/null)" = "4: ACTIVE"
done
ibv_devinfo -d cxib_0 >devinfo-after.txt 2>&1
check "ibv_devinfo after reloading" has 'state:[[:space:]]+PORT_ACTIVE' devinfo-after.txt

# A process holding a user context (libmlx5, its UAR pages mapped) does not stop removal:
# the context is disassociated and the process told the device is gone.
setsid timeout 60 ibv_asyncwatch -d cxib_0 >asyncwatch.txt 2>&1 </dev/null &
watcher=$!
wait_for 5 has 'async event FD' asyncwatch.txt
check "rmmod cxib with a user context open" rmmod cxib
wait_for 5 has 'DEVICE_FATAL' asyncwatch.txt
check "the context was told the device is gone" has 'IBV_EVENT_DEVICE_FATAL' asyncwatch.txt
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
check "modprobe cxib after that" modprobe cxib
wait_for 5 test -e $sys/ports/1/state
check "cxib_0 back again" test "$(cat $sys/node_guid 2>/dev/null)" = "$guid"

dmesg >dmesg.txt
check "no WARN/BUG/Oops/lockdep in dmesg" no_splat dmesg.txt
dmesg --level=emerg,alert,crit,err >dmesg-err.txt
check "no cxib error in dmesg" bash -c "! grep -n 'cxib' dmesg-err.txt"
check "firmware healthy" bash -c "! grep -nE 'cxib.*(fatal firmware error|health)' dmesg.txt"
exit $fail
