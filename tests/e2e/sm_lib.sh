# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tests/e2e/sm_lib.sh: the lab's subnet manager (the stock opensm) inside a node.  Sourced
# from /cxlab/e2e/sm_lib.sh by the jobs scripts/cxlab runs (`--sm opensm`, the default)
# and by the subnet-management scenarios.
#
#   sm_start [PRIORITY [NAME]]  start opensm on this node's cxib_0 port 1 (daemon, log in
#                               /var/log/opensm-NAME.log, its config in /etc/opensm/NAME.conf)
#   sm_ensure [PRIORITY]        start it unless it runs and still holds a live device: a
#                               cxib reload (rmmod/modprobe) leaves opensm with the dead
#                               device's file descriptors, so it is restarted then
#   sm_stop [NAME]              stop it
#   sm_wait_active [SECONDS]    until this node's port is ACTIVE (0) or the time is up (1)
#
# and what the subnet-management scenarios check with:
#   check, wait_file, put_file  from check.sh (sourced here)
#   has REGEX FILE              FILE has a line matching REGEX
#   dotted FILE FIELD           the value of a "Field:.....value" line (smpquery, perfquery)
#
# opensm's defaults are kept except where the lab needs another value: a short SM polling
# timeout so that a standby SM takes over within seconds (SM failover), a short sweep
# interval so that a port that comes back is configured quickly, and a longer transaction
# timeout, because a lab node answers SMPs late when its host is busy.
#
# The transaction timeout: an SMP to a CA is answered by the node's kernel (the MAD layer,
# the driver's process_mad, the firmware's SMA behind MAD_IFC), so a node whose vCPU gets no
# host CPU answers only when it runs again: under two labs' load a TCG guest stalls for up
# to about 2 s.  With opensm's default (200 ms, 3 retries: 0.8 s) the light sweep then
# takes the stalled node for gone, drops it, and its link manager sets the SM's own port,
# whose neighbour it no longer knows, to Down (osm_link_mgr.c: a port whose remote port is
# unreachable).  That port is down for about 4 s (retrain, Init, the SM rediscovers the
# subnet, Armed, Active), and every packet to or from the node in that time is dropped:
# the "unexplained" UD and UC messages and MADs lost on a clean cable.  1 s with 3 retries
# (4 s) rides out such stalls; a node that is really gone is dropped 3 s later.

SM_DEV=${SM_DEV:-cxib_0}
SM_SWEEP=${SM_SWEEP:-5}			# seconds between sweeps (opensm default 10)
SM_POLL_MS=${SM_POLL_MS:-1000}		# standby polls the master this often (default 10000)
SM_POLL_RETRIES=${SM_POLL_RETRIES:-3}	# and takes over after this many misses (default 4)
SM_TRANS_MS=${SM_TRANS_MS:-1000}	# an SMP is sent again after this (default 200)

sm_conf() { # sm_conf NAME PRIORITY: write /etc/opensm/NAME.conf
	mkdir -p /etc/opensm /var/cache/opensm
	cat >/etc/opensm/"$1".conf <<EOF
# written by tests/e2e/sm_lib.sh
sm_priority $2
sweep_interval $SM_SWEEP
sminfo_polling_timeout $SM_POLL_MS
polling_retry_number $SM_POLL_RETRIES
transaction_timeout $SM_TRANS_MS
log_file /var/log/opensm-$1.log
EOF
	# the partitions of the scenario, if it wrote one
	if [ -f /etc/opensm/partitions-"$1".conf ]; then
		echo "partition_config_file /etc/opensm/partitions-$1.conf" >>/etc/opensm/"$1".conf
	fi
}

sm_pid() { pgrep -f "opensm .*-F /etc/opensm/${1:-lab}.conf" | head -n1; }
sm_running() { [ -n "$(sm_pid "$1")" ]; }

sm_start() {
	local prio=${1:-10} name=${2:-lab} guid
	modprobe ib_umad || return 1
	guid=$(cut -d: -f5- /sys/class/infiniband/"$SM_DEV"/ports/1/gids/0 2>/dev/null | tr -d :)
	[ -n "$guid" ] || { echo "sm_start: no $SM_DEV port 1 GID" >&2; return 1; }
	sm_conf "$name" "$prio"
	opensm -B -F /etc/opensm/"$name".conf -g 0x"$guid" >/dev/null 2>&1 || return 1
	wait_for 5 sm_running "$name" && return 0
	echo "sm_start: opensm did not start; see /var/log/opensm-$name.log" >&2
	return 1
}

sm_stop() {
	local name=${1:-lab} pid
	pid=$(sm_pid "$name")
	[ -n "$pid" ] || return 0
	kill "$pid"
	wait_for 5 exited "$pid" && return 0
	kill -9 "$pid" 2>/dev/null
}

sm_ensure() {
	local prio=${1:-10} pid
	pid=$(sm_pid lab)
	if [ -n "$pid" ] && ! ls -l /proc/"$pid"/fd 2>/dev/null | grep -q 'infiniband.*(deleted)'; then
		return 0
	fi
	sm_stop lab
	sm_start "$prio" lab
}

sm_wait_active() { wait_for "${1:-60}" port_active /sys/class/infiniband/"$SM_DEV"; }

# shellcheck source=check.sh
. /cxlab/e2e/check.sh
has() { grep -qE "$1" "$2"; }
dotted() { sed -n "s/^$2:\.*\(.*\)$/\1/p" "$1" | head -n1; }
