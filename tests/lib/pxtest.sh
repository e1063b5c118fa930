# SPDX-License-Identifier: GPL-2.0
# Helpers for tests/guest/*.sh; source with: . ./lib/pxtest.sh
# ok NAME; notok NAME REASON; finish (exit status = failures seen).
# $PX_KERNEL is the flavour (lean|debug), $PX_REPO the read-only repo.
px_failed=0
ok() { echo "ok $1"; }
notok() { echo "not ok $1 - $2"; px_failed=$((px_failed + 1)); }
# check NAME REASON command...: ok if the command succeeds.
check() {
	n=$1 r=$2; shift 2
	if "$@"; then ok "$n"; else notok "$n" "$r"; fi
}
finish() { exit "$px_failed"; }
