# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tests/e2e/check.sh: the one check() of the lab's scenarios, sourced from
# /cxlab/e2e/check.sh (scripts/cxlab puts the non-scenario scripts of tests/e2e/ on the
# share; sm_lib.sh sources it for the scenarios that use that).
#
#   check "what" CMD...   run CMD; print "ok   what" or "FAIL what"; count the outcome in
#                         npass / nfail, and set fail=1 on a failure (the scenario's verdict)

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
