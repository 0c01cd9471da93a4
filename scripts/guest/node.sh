# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# scripts/guest/node.sh: what makes a booted image a lab node, shared by the two PID 1s a
# node can have (scripts/cxlab --init): /cxlab/guest/init (no init system) and
# /cxlab/guest/init-systemd (prepares the node, then becomes systemd).  Sourced as
# /cxlab/guest/node.sh; each function logs through log(), which the caller defines.
#
#   node_params     CXLAB_* from the kernel command line (cxlab.node=node1 ...) and from
#                   /cxlab/lab.env (node list, addresses); sets and writes the host name
#   node_network    the management address on the first virtio NIC (eth0) and every
#                   node's name in /etc/hosts
#   node_modules    install the modules built on the host for this kernel, and their index

node_params() {
	local arg k
	for arg in $(cat /proc/cmdline); do
		case "$arg" in
		cxlab.*=*)
			k=${arg%%=*}
			k=${k#cxlab.}
			declare -g "CXLAB_$(echo "$k" | tr a-z A-Z)=${arg#*=}"
			;;
		esac
	done
	: "${CXLAB_NODE:=node1}" "${CXLAB_INDEX:=1}"
	export CXLAB_NODE CXLAB_INDEX
	hostname "$CXLAB_NODE"
	echo "$CXLAB_NODE" >/etc/hostname
	# Lab-wide settings written by the host (node list, addresses, kernel release).
	# shellcheck disable=SC1091
	[ -r /cxlab/lab.env ] && . /cxlab/lab.env
	return 0
}

node_network() {
	local addr_var n v
	ip link set lo up
	modprobe -q virtio_net 2>/dev/null
	addr_var="CXLAB_ADDR_${CXLAB_NODE}"
	NODE_ADDR=${!addr_var:-}
	for _ in $(seq 50); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
	if [ -n "$NODE_ADDR" ] && [ -e /sys/class/net/eth0 ]; then
		ip addr add "$NODE_ADDR/${CXLAB_PREFIXLEN:-24}" dev eth0
		ip link set eth0 up
		# The cable of the management net is a host-side relay: no offloads to emulate.
		for n in $CXLAB_NODES; do
			v="CXLAB_ADDR_$n"
			echo "${!v} $n" >>/etc/hosts
		done
	else
		log "WARNING: management network not configured (addr='$NODE_ADDR')"
	fi
}

# The modules built on the host for this kernel (cxib.ko, kverbs.ko) come on the share as
# /cxlab/modules/<kver>/*.ko with index/, the module index that the host's depmod made for
# this image's tree with them in updates/cxlab.  Install both, as a package would, so that
# modprobe, modinfo and rmmod (and udev, by the device's modalias) know cxib by name.
node_modules() {
	local kdir mshare
	kdir=/lib/modules/$(uname -r)
	mshare=/cxlab/modules/$(uname -r)
	# A kernel built by scripts/build-kernel (cxlab --kernel debug) has no modules in the
	# image: the share carries them.
	if [ -d "$mshare/kernel" ] && [ ! -e "$kdir/kernel" ]; then
		mkdir -p "$kdir" && ln -s "$mshare/kernel" "$kdir/kernel" ||
			log "ERROR: cannot link the kernel's modules of $mshare into $kdir"
	fi
	if [ -f "$mshare/index/modules.dep.bin" ]; then
		mkdir -p "$kdir/updates/cxlab"
		cp "$mshare"/*.ko "$kdir/updates/cxlab/" &&
			cp "$mshare"/index/modules.* "$kdir/" ||
			log "ERROR: cannot install the modules of $mshare in $kdir"
	else
		log "ERROR: $mshare/index is missing (scripts/cxlab puts it there; is this an old share?)"
	fi
	[ -f "$kdir/updates/cxlab/cxib.ko" ] ||
		log "ERROR: cxib.ko is not installed (build it with: make kmod-path KVER=$(uname -r))"
}
