# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2317
#
# tests/e2e/lib.sh: common setup of the two-node userspace verbs scenarios (pingpong.sh,
# perftest.sh, uverbs_neg.sh), which source it from /cxlab/e2e/lib.sh (scripts/cxlab puts
# it on the share); the scenario runs in $CXLAB_RESULTS.
#
# Host switches (scripts/cxlab passes E2E_* variables on):
#   E2E_DEVICE=rxe      Soft-RoCE instead of cxib: rdma_rxe, rxe0 on the interface that
#                       carries $CXLAB_ADDR (RoCE v2, the tools get a GID index)
#   E2E_DEVICE=<name>   any other RDMA device (default: the node's HCA, cxib_0, or mlx5_0
#                       on a node that cxlab --driver mlx5/mixed gave the stock driver)
#   E2E_CASES="a b"     run only these cases (names as printed), for debugging
#   E2E_SWAP=1          node2 is the server and node1 the client (interop, both ways)
#   E2E_SUBDIR=<dir>    the run's files are in <dir> under each node's results (a
#                       scenario that runs another one more than once, e.g. mlx5.sh)
#
# The two nodes run the same list of cases in the same order; node1 is the server, node2
# the client.  They step through the cases together through files on the 9p share (each
# node's results directory is visible to the other under /cxlab/results/$CXLAB_JOB/):
#   <case>.ready   server: its tool is started and listening
#   <case>.rc      either side: its tool ended with this status
# Each case uses its own TCP port, so a server that is still ending does not block the next.

E2E_SETUP_FAIL=0
E2E_NFAIL=0
E2E_NPASS=0
E2E_NSKIP=0
E2E_NXFAIL=0
# no_splat and SPLAT_RE, the one kernel-log pattern of the scenarios
# shellcheck source=check.sh
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"

E2E_JSON=
E2E_PORT=${E2E_PORT:-18600}
E2E_CASE_TMO=${E2E_CASE_TMO:-120}

e2e_log() { echo "$*"; }

# e2e_roce_gid SYSDIR GID: set GIDX to the index of GID in the device's table if it is a
# RoCE v2 entry; false while there is none.
e2e_roce_gid() {
	local g i
	for g in "$1"/ports/1/gids/*; do
		i=${g##*/}
		if [ "$(cat "$g" 2>/dev/null)" = "$2" ] &&
			[ "$(cat "$1"/ports/1/gid_attrs/types/"$i" 2>/dev/null)" = "RoCE v2" ]; then
			GIDX=$i
			return 0
		fi
	done
	return 1
}

# e2e_setup: device, uverbs, port state, GID index.  Sets DEV, GIDX ("" on InfiniBand),
# LINK (InfiniBand|Ethernet), ROLE, SDIR, CDIR, PEERDIR, E2E_MODE.  Returns 1 with a reason
# in E2E_SETUP_REASON when the device cannot be used.
e2e_setup() {
	local mode=${E2E_DEVICE:-hca} netif st u a b c d want g i srv cli sys
	E2E_SETUP_REASON=
	srv=${CXLAB_NODES%% *}
	cli=$(echo "$CXLAB_NODES" | awk '{ print $2 }')
	if [ "${E2E_SWAP:-0}" = 1 ]; then
		srv=$cli
		cli=${CXLAB_NODES%% *}
	fi
	SDIR=/cxlab/results/$CXLAB_JOB/$srv${E2E_SUBDIR:+/$E2E_SUBDIR}
	CDIR=/cxlab/results/$CXLAB_JOB/$cli${E2E_SUBDIR:+/$E2E_SUBDIR}
	a="CXLAB_ADDR_$srv"
	E2E_SERVER_ADDR=${!a:-$CXLAB_SERVER_ADDR}
	ROLE=client
	PEERDIR=$SDIR
	if [ "$CXLAB_NODE" = "$srv" ]; then
		ROLE=server
		PEERDIR=$CDIR
	fi
	# No udev in the lab: nothing loads ib_uverbs on demand.
	modprobe ib_uverbs 2>err.txt ||
		{ E2E_SETUP_REASON="modprobe ib_uverbs: $(head -n1 err.txt)"; return 1; }
	netif=$(ip -o -4 addr show | awk -v a="$CXLAB_ADDR/" 'index($4, a) == 1 { print $2; exit }')
	case $mode in
	rxe)
		DEV=rxe0
		modprobe rdma_rxe 2>err.txt ||
			{ E2E_SETUP_REASON="modprobe rdma_rxe: $(head -n1 err.txt)"; return 1; }
		if [ ! -e /sys/class/infiniband/$DEV ]; then
			rdma link add $DEV type rxe netdev "${netif:-eth0}" 2>err.txt ||
				{ E2E_SETUP_REASON="rdma link add $DEV: $(head -n1 err.txt)"; return 1; }
		fi
		;;
	hca) DEV=$(e2e_hca_dev) ;;
	cxib | cxib_0) DEV=cxib_0 ;;
	*) DEV=$mode ;;
	esac
	export E2E_MODE=$mode
	sys=/sys/class/infiniband/$DEV
	wait_for 10 port_active "$sys"
	st=$(cat "$sys"/ports/1/state 2>/dev/null)
	[ "$st" = "4: ACTIVE" ] ||
		{ E2E_SETUP_REASON="$DEV port 1 is not ACTIVE (${st:-no device})"; return 1; }
	UVERBS=
	for u in /sys/class/infiniband_verbs/uverbs*; do
		[ "$(cat "$u/ibdev" 2>/dev/null)" = "$DEV" ] && UVERBS=${u##*/}
	done
	[ -n "$UVERBS" ] ||
		{ E2E_SETUP_REASON="$DEV has no uverbs device: the driver offers no userspace verbs"; return 1; }
	ibv_devices >devices.txt 2>&1
	awk '{ print $1 }' devices.txt | grep -qx "$DEV" ||
		{ E2E_SETUP_REASON="libibverbs lists no $DEV (no provider matched)"; return 1; }
	LINK=$(cat "$sys"/ports/1/link_layer)
	GIDX=
	if [ "$LINK" = Ethernet ]; then
		IFS=. read -r a b c d <<<"$CXLAB_ADDR"
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
		# The GID table follows the interface's addresses: give a new device time.
		wait_for 5 e2e_roce_gid "$sys" "$want"
		[ -n "$GIDX" ] ||
			{ E2E_SETUP_REASON="$DEV has no RoCE v2 GID for $CXLAB_ADDR"; return 1; }
	fi
	ibv_devinfo -v -d "$DEV" >devinfo.txt 2>&1
	ACTIVE_MTU=$(awk '/active_mtu/ { print $2; exit }' devinfo.txt)
	echo "device $DEV link_layer=$LINK gid_index=${GIDX:--} uverbs=$UVERBS" \
		"active_mtu=${ACTIVE_MTU:-?} role=$ROLE netif=${netif:-?}"
	return 0
}

# e2e_hca_dev: the RDMA device of this node's HCA, by the driver cxlab loaded for it
e2e_hca_dev() {
	case ${CXLAB_DRIVER:-cxib} in
	mlx5) echo mlx5_0 ;;
	*) echo cxib_0 ;;
	esac
}

e2e_wanted() { # e2e_wanted CASE: is the case selected by E2E_CASES?
	[ -z "${E2E_CASES:-}" ] && return 0
	case " $E2E_CASES " in *" $1 "*) return 0 ;; esac
	return 1
}

e2e_jstr() { local s=$1; s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//$'\t'/ }; printf '"%s"' "$s"; }

# e2e_result CASE pass|FAIL|skip|xfail REASON [SECONDS]  (xfail: a known deviation of the
# device named in the reason, e.g. Soft-RoCE's; it does not fail the scenario)
e2e_result() {
	local c=$1 r=$2 why=$3 secs=${4:-0}
	printf '%-4s %-28s %4ss  %s\n' "$r" "$c" "$secs" "$why" | tee -a results.txt
	case $r in
	pass) E2E_NPASS=$((E2E_NPASS + 1)) ;;
	FAIL) E2E_NFAIL=$((E2E_NFAIL + 1)) ;;
	xfail) E2E_NXFAIL=$((E2E_NXFAIL + 1)) ;;
	*) E2E_NSKIP=$((E2E_NSKIP + 1)) ;;
	esac
	E2E_JSON="$E2E_JSON${E2E_JSON:+,
}    {\"case\": $(e2e_jstr "$c"), \"result\": $(e2e_jstr "$r"), \"seconds\": $secs, \"reason\": $(e2e_jstr "$why")}"
}

# e2e_finish SCENARIO: results.json, summary line, exit status.
e2e_finish() {
	local scen=$1
	{
		printf '{\n  "scenario": %s, "node": %s, "role": %s, "device": %s, "link_layer": %s,\n' \
			"$(e2e_jstr "$scen")" "$(e2e_jstr "$CXLAB_NODE")" "$(e2e_jstr "${ROLE:-?}")" \
			"$(e2e_jstr "${DEV:-?}")" "$(e2e_jstr "${LINK:-?}")"
		printf '  "setup_error": %s,\n' "$(e2e_jstr "${E2E_SETUP_REASON:-}")"
		printf '  "summary": {"passed": %d, "failed": %d, "skipped": %d, "xfail": %d},\n' \
			$E2E_NPASS $E2E_NFAIL $E2E_NSKIP $E2E_NXFAIL
		printf '  "cases": [\n%s\n  ]\n}\n' "$E2E_JSON"
	} >results.json
	echo "summary $scen node=$CXLAB_NODE passed=$E2E_NPASS failed=$E2E_NFAIL skipped=$E2E_NSKIP xfail=$E2E_NXFAIL"
	dmesg >dmesg.txt
	if ! no_splat dmesg.txt; then
		echo "FAIL kernel log has a WARN/BUG/Oops/lockdep report (dmesg.txt)"
		E2E_NFAIL=$((E2E_NFAIL + 1))
	fi
	[ "$E2E_SETUP_FAIL" = 0 ] && [ $E2E_NFAIL = 0 ]
}

# e2e_lasterr FILE: the tool's most telling line: the last error-looking line, else the
# last non-empty one.
e2e_lasterr() {
	local l
	l=$(grep -E "[Ee]rror|[Ff]ail|[Cc]ouldn't|[Uu]nable|[Ii]nvalid|not supported|status|Mismatch|mismatch|Segmentation|Aborted|Killed|timed out|No such|denied" "$1" 2>/dev/null |
		grep -v '^ *---' | tail -n 1)
	[ -n "$l" ] || l=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | grep -v '^ *---' | tail -n 1)
	echo "${l:-no output}" | tr -s '\t ' ' ' | cut -c1-200
}

# A tool that exited 0 without the line that shows it did its work (E2E_OK_RE on the
# server, E2E_OK_RE_CLIENT on the client; unset: no check) fails with status 99.
e2e_check_ok() {
	local re=${E2E_OK_RE:-}
	[ "$ROLE" = client ] && re=${E2E_OK_RE_CLIENT-$re}
	if [ "$E2E_RC" = 0 ] && [ -n "$re" ] && ! grep -qE -- "$re" "$1.out"; then
		echo "exit 0 but no line matching /$re/ in the output" >>"$1.out"
		E2E_RC=99
	fi
}

# e2e_watch CASE TIMEOUT: if the case still runs 3 s before its timeout, the host keeps
# every node's model state (cxlab_state CASE; the first of the two sides to ask is
# kept), while the tools still hold their QPs.
# e2e_unwatch: the case ended.
e2e_watch() {
	local c=$1 tmo=$2
	[ "$tmo" -gt 6 ] || return 0
	(sleep $((tmo - 3)) && cxlab_state "$c") &
	E2E_WATCH=$!
}
e2e_unwatch() {
	[ -n "${E2E_WATCH:-}" ] || return 0
	kill "$E2E_WATCH" 2>/dev/null
	wait "$E2E_WATCH" 2>/dev/null
	E2E_WATCH=
}

# e2e_pair CASE TIMEOUT SERVER_CMD... -- CLIENT_CMD...
# Runs the case's tool on both nodes (the client gets the server's address appended) and
# leaves this node's status in E2E_RC, the peer's in E2E_PEER_RC ("" if it never ended),
# outputs in CASE.out (and the peer's in $PEERDIR/CASE.out).
e2e_pair() {
	local c=$1 tmo=$2 scmd=() ccmd=() pid end
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	rm -f "$c.out" "$c.rc" "$c.ready"
	E2E_RC=
	E2E_PEER_RC=
	if [ "$ROLE" = server ]; then
		echo "+ ${scmd[*]}" >"$c.cmd"
		timeout --kill-after=5 "$tmo" stdbuf -oL -eL "${scmd[@]}" >"$c.out" 2>&1 </dev/null &
		pid=$!
		e2e_watch "$c" "$tmo"
		sleep 0.3
		put_file "$c.ready" started
		end=$((SECONDS + tmo + 10))
		while kill -0 $pid 2>/dev/null; do
			# The client gave up (its tool ended in an error): stop waiting for it.
			if [ -s "$PEERDIR/$c.rc" ] && [ "$(cat "$PEERDIR/$c.rc")" != 0 ]; then
				sleep 3
				kill $pid 2>/dev/null
				break
			fi
			[ $SECONDS -ge $end ] && { kill -9 $pid 2>/dev/null; break; }
			sleep 0.1
		done
		wait $pid
		E2E_RC=$?
		e2e_unwatch
		e2e_check_ok "$c"
		put_file "$c.rc" "$E2E_RC"
	else
		echo "+ ${ccmd[*]} $E2E_SERVER_ADDR" >"$c.cmd"
		if ! wait_file "$PEERDIR/$c.ready" 90; then
			echo "the server did not start its tool within 90s" >"$c.out"
			E2E_RC=255
		else
			# A client that comes before the server listens is refused and retries.
			sleep 0.3
			for _ in $(seq 20); do
				e2e_watch "$c" "$tmo"
				timeout --kill-after=5 "$tmo" stdbuf -oL -eL "${ccmd[@]}" "$E2E_SERVER_ADDR" >"$c.out" 2>&1 </dev/null
				E2E_RC=$?
				e2e_unwatch
				grep -q "Couldn't connect\|Unable to connect\|Connection refused" "$c.out" || break
				# The server may still be getting ready; it did not fail.
				[ -s "$PEERDIR/$c.rc" ] && break
				sleep 0.5
			done
		fi
		e2e_check_ok "$c"
		put_file "$c.rc" "$E2E_RC"
	fi
	# Both sides' statuses for the verdict.
	if wait_file "$PEERDIR/$c.rc" $((tmo + 30)); then
		E2E_PEER_RC=$(cat "$PEERDIR/$c.rc")
	fi
}

# Statuses as a word for the verdict lines.
e2e_rcword() {
	case $1 in
	"") echo "never ended" ;;
	0) echo "ok" ;;
	124) echo "timed out" ;;
	137) echo "killed (timeout)" ;;
	*) echo "exit $1" ;;
	esac
}

# e2e_verdict_both CASE SECONDS: pass if both tools exited 0, else FAIL with the failing
# side's last error line.
e2e_verdict_both() {
	local c=$1 secs=$2 mine peer srv_rc cli_rc srv_out cli_out why
	mine=$E2E_RC
	peer=$E2E_PEER_RC
	if [ "$ROLE" = server ]; then
		srv_rc=$mine cli_rc=$peer srv_out=$c.out cli_out=$PEERDIR/$c.out
	else
		srv_rc=$peer cli_rc=$mine srv_out=$PEERDIR/$c.out cli_out=$c.out
	fi
	if [ "$srv_rc" = 0 ] && [ "$cli_rc" = 0 ]; then
		e2e_result "$c" pass "both sides ok${E2E_NOTE:+ ($E2E_NOTE)}" "$secs"
		return 0
	fi
	if [ "$cli_rc" != 0 ]; then
		why="client $(e2e_rcword "$cli_rc"): $(e2e_lasterr "$cli_out")"
	else
		why="server $(e2e_rcword "$srv_rc"): $(e2e_lasterr "$srv_out")"
	fi
	e2e_result "$c" FAIL "$why" "$secs"
	return 1
}
