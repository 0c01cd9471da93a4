#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cxlab: nodes=2 timeout=300 init=systemd sm=none
#
# package_boot: a host with the cxib-dkms package comes up like one with mlx5.  The nodes
# boot systemd (cxlab --init systemd) with the package the host built installed by dpkg
# (scripts/guest/init-systemd) and no driver loaded by the lab: udev loads cxib from the
# device's modalias, the package's udev rule marks the device InfiniBand, and rdma-core's
# rules and units do the rest, as they do for mlx5_core.  On both nodes: the package is
# installed as built; rdma-core's naming rule renamed cxib_0 (ibp1s0, as mlx5_0 would be);
# ID_RDMA_INFINIBAND=1; rdma-load-modules@infiniband.service loaded ib_ipoib and ib_umad
# (ib0, umad0) and rdma-load-modules@rdma.service ib_uverbs and rdma_ucm; rdma-hw.target
# and rdma-ndd.service are up; no unit failed; the package ships no modprobe configuration
# (mlx5_core keeps the functions it claims).  Then node1 starts opensm.service (the ports
# are INIT: the lab starts no SM, sm=none), which runs opensm@<port GUID>.service and
# brings both ports to ACTIVE.  Last, on node2, the control: with the package removed
# (dpkg --remove) a new cxib device still reaches systemd (rdma-hw.target) but gets no
# ID_RDMA_INFINIBAND, and ib_ipoib and ib_umad stay unloaded; with it installed again they
# are loaded again.
set -u
# shellcheck source=check.sh
. /cxlab/e2e/check.sh
WAIT_POLL=0.2	# wait_for: systemctl and udevadm are slow under TCG
has() { grep -qE -- "$1" "$2"; } # has REGEX FILE
note() { echo "     $*"; }
t0=$SECONDS
stamp() { echo "$((SECONDS - t0))s $*" >>timeline.txt; }

deb=$(echo /cxlab/debs/cxib-dkms_*_all.deb)
rule=/lib/udev/rules.d/60-cxib-dkms.rules
bdf=$(lspci -D -n -d 15b3:1013 | awk 'NR==1 { print $1 }')
pcidev=/sys/bus/pci/devices/$bdf
ibdev() { local d; for d in "$pcidev"/infiniband/*; do [ -e "$d" ] && echo "${d##*/}"; done; }
has_ibdev() { [ -n "$(ibdev)" ]; }
active() { [ "$(systemctl is-active "$1" 2>/dev/null)" = active ]; }
no_jobs() { [ -z "$(systemctl list-jobs --no-legend 2>/dev/null)" ]; }
loaded() { [ "$(cat "/sys/module/$1/initstate" 2>/dev/null)" = live ]; }
not_loaded() { ! [ -e "/sys/module/$1" ]; }
prop() { udevadm info -q property -p "/sys/class/infiniband/$1" | sed -n "s/^$2=//p"; }
unit_ran() { # unit_ran UNIT: it ran to completion and succeeded
	[ "$(systemctl show -p ActiveState --value "$1")" = active ] &&
		[ "$(systemctl show -p Result --value "$1")" = success ] &&
		[ "$(systemctl show -p ExecMainStatus --value "$1")" = 0 ]
}
# A new cxib device has been through udev and systemd: rdma-hw.target, which every RDMA
# device wants, is reached after every rdma-load-modules@ unit the same device wants.
device_settled() {
	udevadm settle --timeout=120 && wait_for 20 has_ibdev && udevadm settle --timeout=60 &&
		wait_for 60 active rdma-hw.target && wait_for 60 no_jobs
}
N1DIR=/cxlab/results/$CXLAB_JOB/node1
N2DIR=/cxlab/results/$CXLAB_JOB/node2

# ---- the boot, as systemd and udev left it ------------------------------------------------
check "PID 1 is systemd" test "$(cat /proc/1/comm)" = systemd
timeout 180 systemctl is-system-running --wait >system-state.txt 2>&1
stamp "systemd: $(cat system-state.txt)"
check "the boot finished: system running ($(cat system-state.txt))" has '^running$' system-state.txt
# udev's coldplug goes on after that (under TCG for a while): cxib comes with it.
check "udev loaded cxib and the device settled in systemd (rdma-hw.target reached)" device_settled
stamp "device settled: $(ibdev)"
systemd-analyze >systemd-analyze.txt 2>&1
ib=$(ibdev)
check "cxib is bound to $bdf" test "$(basename "$(readlink "$pcidev/driver")")" = cxib
check "cxib registered cxib_0" grep -q "cxib $bdf cxib_0: node GUID" <(dmesg)
bus=$((0x$(echo "$bdf" | cut -d: -f2)))
slot=$((0x$(echo "$bdf" | cut -d: -f3 | cut -d. -f1)))
check "rdma-core's naming rule renamed it by PCI location: ${ib:-none} = ibp${bus}s${slot}" \
	test "$ib" = "ibp${bus}s${slot}"

# The package, as dpkg installed it.
ver=$(dpkg-deb -f "$deb" Version)
check "cxib-dkms $ver is installed (unpacked by dpkg; DKMS is the package tier's)" \
	test "$(dpkg-query -W -f='${Status} ${Version}' cxib-dkms 2>&1)" = "install ok unpacked $ver"
check "dpkg -S: $rule is the package's" test "$(dpkg -S "$rule" 2>&1)" = "cxib-dkms: $rule"
check "the installed rule is the one in the package" \
	cmp -s "$rule" <(dpkg-deb --fsys-tarfile "$deb" | tar -xO ".$rule")
# (the image keeps no /usr/share/doc but copyright files: dpkg --verify misses those)
dpkg --verify cxib-dkms >verify.txt 2>&1
check "dpkg --verify cxib-dkms: no file changed" test -z "$(grep -v ' /usr/share/doc/' verify.txt)"
# Binding: the package leaves the choice between mlx5_core and cxib to the administrator
# (Documentation/packaging.md).  It ships no modprobe configuration, and without one (the
# lab image blacklists mlx5 itself) the stock driver would be loaded first for the device.
dpkg -L cxib-dkms >files.txt
check "the package ships no modprobe.d file (no mlx5 blacklist)" \
	bash -c "! grep -E '/modprobe\.d/' files.txt"
modprobe -R "$(cat "$pcidev/modalias")" >alias.txt 2>&1
check "the device's modalias resolves to mlx5_core before cxib" \
	test "$(tr '\n' ' ' <alias.txt)" = "mlx5_core cxib "

# What the package's rule and rdma-core's rules made of the device.
check "udev: ID_RDMA_INFINIBAND=1 on $ib" test "$(prop "$ib" ID_RDMA_INFINIBAND)" = 1
check "udev: $ib wants rdma-load-modules@infiniband.service" \
	grep -qw rdma-load-modules@infiniband.service <(prop "$ib" SYSTEMD_WANTS)
check "rdma-load-modules@infiniband.service ran and succeeded" \
	unit_ran rdma-load-modules@infiniband.service
journalctl -b -o cat -u rdma-load-modules@infiniband.service >load-infiniband.txt 2>&1
for m in ib_ipoib ib_umad; do
	check "$m is loaded, by rdma-load-modules@infiniband" \
		bash -c "[ \"\$(cat /sys/module/$m/initstate)\" = live ] &&
			grep -q \"Inserted module '$m'\" load-infiniband.txt"
done
check "ib_ipoib made ib0, an InfiniBand netdev (type 32)" \
	test "$(cat /sys/class/net/ib0/type 2>&1)" = 32
check "ib_umad made umad0 for $ib (opensm.service's condition)" bash -c \
	"[ -e /sys/class/infiniband_mad/abi_version ] && [ \"\$(cat /sys/class/infiniband_mad/umad0/ibdev)\" = $ib ]"
check "rdma-load-modules@rdma.service ran and succeeded" unit_ran rdma-load-modules@rdma.service
for m in ib_uverbs rdma_ucm; do
	check "$m is loaded (rdma.conf, for every RDMA device)" loaded $m
done
check "rdma-hw.target is active" active rdma-hw.target
check "rdma-ndd.service runs (udev wants it for $ib)" active rdma-ndd.service
# rdma-ndd writes "<host name> <device>" into node_desc, through the driver's modify_device,
# which hands it to the firmware's SMA too: what the subnet sees.
want="$(hostname) $ib"
check "rdma-ndd set the node description to '$want'" wait_for 10 bash -c \
	"[ \"\$(cat /sys/class/infiniband/$ib/node_desc)\" = '$want' ]"
check "the SMA answers NodeDescription '$want' (smpquery, directed route to itself)" \
	bash -c "smpquery -C $ib -P 1 -D nodedesc 0 2>&1 | grep -qF '$want'"
ibv_devinfo -d "$ib" >devinfo.txt 2>&1
check "ibv_devinfo -d $ib (libibverbs, libmlx5)" has 'transport:[[:space:]]+InfiniBand' devinfo.txt
systemctl --failed --plain --no-legend >failed.txt 2>&1
check "no failed unit" test ! -s failed.txt
[ -s failed.txt ] && sed 's/^/     /' failed.txt

# ---- opensm.service: the ports go from INIT to ACTIVE -------------------------------------
port=/sys/class/infiniband/$ib/ports/1
port_active() { [ "$(cat "$port"/state)" = "4: ACTIVE" ]; }
check "port 1 is INIT before any SM runs (the lab started none)" \
	test "$(cat "$port"/state)" = "2: INIT"
guid=$(ibstat -p "$ib" | head -n1)
echo "$guid" >guid
: >init-seen
stamp "port INIT"
if [ "$CXLAB_INDEX" = 1 ]; then
	check "node2's port is INIT too" wait_file "$N2DIR/init-seen" 120
	check "systemctl start opensm.service" systemctl start opensm.service
	stamp "opensm.service started"
	check "opensm.service is active" active opensm.service
	check "it started opensm@$guid.service for this port (PORTS=ALL)" \
		wait_for 10 active "opensm@$guid.service"
	check "port 1 becomes ACTIVE" wait_for 90 port_active
	stamp "port ACTIVE"
	lid=$(($(cat "$port"/lid)))
	echo "$lid" >lid
	check "opensm is the SM: SM LID = this port's LID ($lid)" \
		test "$(($(cat "$port"/sm_lid)))" = "$lid"
	check "opensm's log says SUBNET UP" wait_for 30 has 'SUBNET UP' "/var/log/opensm.$guid.log"
	cp "/var/log/opensm.$guid.log" opensm.log 2>/dev/null
else
	check "port 1 becomes ACTIVE (node1's opensm.service)" \
		wait_for 150 port_active
	stamp "port ACTIVE"
	wait_file "$N1DIR/lid" 30
	sminfo -C "$ib" -P 1 >sminfo.txt 2>&1
	check "sminfo: the master SM is node1's port ($(cat "$N1DIR/guid" 2>/dev/null))" has \
		"sm lid $(cat "$N1DIR/lid" 2>/dev/null) sm guid $(printf '%#x' "$(cat "$N1DIR/guid" 2>/dev/null)")"'.*SMINFO_MASTER' sminfo.txt
fi

# ---- the control, on node2: without the package's rule, no InfiniBand upper layers --------
hw_stopped() { ! systemctl -q is-active rdma-hw.target; }
rebind() { # unbind cxib from the function and bind it again: a new device, through udev;
	# in between, nothing of the last device's upper layers is left
	local m
	echo "$bdf" >/sys/bus/pci/drivers/cxib/unbind && ! has_ibdev &&
		udevadm settle --timeout=60 && wait_for 30 hw_stopped &&
		systemctl stop rdma-load-modules@infiniband.service || return 1
	for m in ib_ipoib ib_umad; do
		not_loaded $m || rmmod $m || return 1
	done
	echo "$bdf" >/sys/bus/pci/drivers/cxib/bind && device_settled
}
if [ "$CXLAB_INDEX" = 2 ]; then
	check "dpkg --remove cxib-dkms takes the rule away" bash -c \
		"dpkg --remove cxib-dkms >remove.txt 2>&1 && ! [ -e $rule ] && udevadm control --reload"
	check "rebind cxib without the rule (device gone, ib_ipoib/ib_umad unloaded, back)" rebind
	stamp "rebound without the rule"
	ib=$(ibdev)
	check "without the rule: no ID_RDMA_INFINIBAND on ${ib:-none}" \
		test -z "$(prop "$ib" ID_RDMA_INFINIBAND)"
	check "without the rule: rdma-load-modules@infiniband.service did not start" \
		test "$(systemctl show -p ActiveState --value rdma-load-modules@infiniband.service)" = inactive
	for m in ib_ipoib ib_umad; do
		check "without the rule: $m is not loaded" not_loaded $m
	done
	check "without the rule: rdma-hw.target was reached (udev and systemd saw the device)" \
		active rdma-hw.target
	check "dpkg --unpack cxib-dkms puts the rule back" bash -c \
		"dpkg --unpack $deb >reinstall.txt 2>&1 && [ -e $rule ] && udevadm control --reload"
	check "rebind cxib with the rule" rebind
	stamp "rebound with the rule"
	ib=$(ibdev)
	check "with the rule again: ID_RDMA_INFINIBAND=1 on ${ib:-none}" \
		test "$(prop "$ib" ID_RDMA_INFINIBAND)" = 1
	check "with the rule again: rdma-load-modules@infiniband.service ran" \
		unit_ran rdma-load-modules@infiniband.service
	for m in ib_ipoib ib_umad; do
		check "with the rule again: $m is loaded" loaded $m
	done
fi

journalctl -b --no-pager >journal.txt 2>&1
dmesg >dmesg.txt
check "no WARN/BUG/Oops in dmesg" \
	no_splat dmesg.txt
stamp "done"
echo "package_boot $CXLAB_NODE: $npass passed, $nfail failed"
[ "$nfail" = 0 ]
