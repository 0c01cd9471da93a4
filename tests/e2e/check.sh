# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tests/e2e/check.sh: the one check() of the lab's scenarios, sourced from
# /cxlab/e2e/check.sh (scripts/cxlab puts the non-scenario scripts of tests/e2e/ on the
# share; sm_lib.sh sources it for the scenarios that use that).
#
#   check "what" CMD...   run CMD; print "ok   what" or "FAIL what"; count the outcome in
#                         npass / nfail, and set fail=1 on a failure (the scenario's verdict)
#   no_splat FILE         FILE (a kernel log) has no line of SPLAT_RE; the lines if it has
#   cxlab_state LABEL     the host keeps every node's model state as it is now
#   cxlab_fault NODE KIND [ARGS]  the host sets a fault on NODE's HCA (cxlab fault)
#   wait_for SECONDS CMD...  run CMD every WAIT_POLL seconds (0.1) until it succeeds (0) or
#                            the time is up (1)
#   wait_file FILE SECONDS   until FILE exists (the nodes meet through files on the share)
#   put_file FILE TEXT       FILE appears with TEXT in it, whole: written aside, then renamed,
#                            so a peer's wait_file never sees it created but not yet filled
#                            (that once gave sm_partition's node1 an empty GUID for node2).
#                            Flag files without content may simply be touched.
#
# SPLAT_RE is the one pattern of a kernel log that fails a scenario: a warning, BUG or oops,
# a sanitizer's report, a lockdep report (each begins with WARNING: or BUG:; lockdep then
# turns itself off and says so), an RCU stall, a hung task.  Not the word "lockdep" alone: a
# debug kernel's boot says "RCU lockdep checking is enabled".

fail=${fail:-0}
npass=${npass:-0}
nfail=${nfail:-0}

check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok   $what"
		npass=$((npass + 1))
	else
		echo "FAIL $what"
		nfail=$((nfail + 1))
		fail=1
	fi
}

# cxlab_mark TEXT: have the host write "# mark TEXT" into this node's command trace (the
# model's cmd-trace file; scripts/lib/cmdtrace.py cuts traces into phases at the marks),
# between the commands before and after this call.  Returns non-zero, saying why, if the
# host did not confirm within 20 s.  Needs the lab's agent (CXLAB_JOB set by cxlab run).
cxlab_mark() {
	local ack=/run/cxlab-mark.${CXLAB_JOB:-none} answer
	[ -n "${CXLAB_JOB:-}" ] || { echo "cxlab_mark: not in a cxlab job" >&2; return 1; }
	rm -f "$ack"
	printf 'MARK %s %s\n' "$CXLAB_JOB" "$*" >/dev/ttyS1
	wait_for 20 test -s "$ack"
	answer=$(cat "$ack" 2>/dev/null)
	rm -f "$ack"
	[ "$answer" = ok ] && return 0
	echo "cxlab_mark '$*': ${answer:-no answer from the host after 20 s}" >&2
	return 1
}

# cxlab_state LABEL: have the host keep every node's model state now (counters, cable, the
# engines' QPs) with this job's results, as <node>/model-state-LABEL.txt.  For a case about
# to be killed for its timeout: what the QPs hold then says where its packet went.  Does not
# wait for the host.
cxlab_state() {
	[ -n "${CXLAB_JOB:-}" ] || return 0
	printf 'STATE %s %s\n' "$CXLAB_JOB" "$1" >/dev/ttyS1
}

# cxlab_fault NODE KIND [ARGS]: have the host set a fault on NODE's HCA, as `cxlab fault`
# does (loss 1%, unplug, replug, clear, aer fatal, ...; Documentation/lab.md, "Faults").
# Returns non-zero, saying why, if the host refused it or did not answer within 90 s (a
# "remove" waits for the guest's hot-unplug).
cxlab_fault() {
	local ack=/run/cxlab-fault.${CXLAB_JOB:-none} answer
	[ -n "${CXLAB_JOB:-}" ] || { echo "cxlab_fault: not in a cxlab job" >&2; return 1; }
	rm -f "$ack"
	printf 'FAULT %s %s\n' "$CXLAB_JOB" "$*" >/dev/ttyS1
	wait_for 90 test -s "$ack"
	answer=$(cat "$ack" 2>/dev/null)
	rm -f "$ack"
	[ "$answer" = ok ] && return 0
	echo "cxlab_fault '$*': ${answer:-no answer from the host after 90 s}" >&2
	return 1
}

wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep "${WAIT_POLL:-0.1}"
	done
}
wait_file() { wait_for "$2" test -e "$1"; }
# port_active SYSDIR: port 1 of the device at SYSDIR (/sys/class/infiniband/DEV) is ACTIVE
port_active() { test "$(cat "$1/ports/1/state" 2>/dev/null)" = "4: ACTIVE"; }
# exited PID: process PID is gone
exited() { ! kill -0 "$1" 2>/dev/null; }
# tcp_listening PORT: a TCP socket listens on PORT
tcp_listening() { ss -ltn | grep -q ":$1 "; }
put_file() { printf '%s\n' "$2" >"$1.tmp" && mv "$1.tmp" "$1"; }

SPLAT_RE='WARNING:|BUG:|Oops|Call Trace|UBSAN|KASAN|lockdep is turned off|circular locking|detected stalls|blocked for more than'
no_splat() {
	! grep -nE "$SPLAT_RE" "$1"
}
