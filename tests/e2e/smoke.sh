#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=180
#
# Smoke: every node sees the emulated ConnectX-4 function, cxib binds it and logs the
# firmware version, the cable to the peer node is up, the host-built cxib.ko is installed in
# the module tree (modinfo), and it unloads and reloads cleanly (rmmod, modprobe) with no
# WARN/BUG in the kernel log.
set -u
# shellcheck source=check.sh
. /cxlab/e2e/check.sh

dev=$(lspci -D -n -d 15b3:1013 | awk 'NR==1 {print $1}')
lspci -nn >lspci.txt
check "lspci -nn shows 15b3:1013" grep -q '\[15b3:1013\]' lspci.txt
check "class is InfiniBand (0207)" test "$(cat /sys/bus/pci/devices/$dev/class)" = 0x020700
bound() { [ "$(basename "$(readlink "/sys/bus/pci/devices/$dev/driver")")" = cxib ]; }
check "cxib is bound to $dev" bound
check "cxib logged the firmware version" \
	grep -qE "cxib $dev: firmware [0-9]+\.[0-9]+\.[0-9]+" <(dmesg)
check "MSI-X capability present" grep -q 'MSI-X' <(lspci -vv -s "$dev" 2>/dev/null || true)

# The host-built cxib.ko is installed in the module tree (scripts/guest/init), as on a host.
kver=$(uname -r)
ko=/lib/modules/$kver/updates/cxlab/cxib.ko
check "modinfo cxib finds $ko" test "$(modinfo -n cxib 2>&1)" = "$ko"
check "it is the host-built module from the share" cmp -s "$ko" "/cxlab/modules/$kver/cxib.ko"
check "its vermagic is this kernel's ($kver)" \
	bash -c "modinfo -F vermagic cxib | grep -q '^$kver '"
check "the loaded cxib is that module" \
	test "$(cat /sys/module/cxib/srcversion 2>&1)" = "$(modinfo -F srcversion cxib)"

ib=/sys/class/infiniband/cxib_0
for round in 1 2; do
	check "rmmod cxib (round $round)" rmmod cxib
	check "device unbound after rmmod" bash -c "! test -e /sys/bus/pci/devices/$dev/driver"
	check "modprobe cxib (round $round)" modprobe cxib
	check "cxib bound again" bound
	wait_for 5 test -e $ib
	check "cxib_0 back" test -e $ib
done

dmesg >dmesg.txt
check "no WARN/BUG/Oops in dmesg" no_splat dmesg.txt
exit $fail
