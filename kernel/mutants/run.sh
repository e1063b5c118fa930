#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Does the suite catch a broken kernel?  Each kernel/mutants/NAME.patch is
# the series with one deliberate bug (its header: "# breaks: ..." says
# which, "# tests: REGEX" the guest scripts that should catch it).  For
# each: apply it to build/linux-mutant (a worktree at the series tree's
# HEAD: build/mutant/linux), build the lean configuration (kernel/build.sh
# mutant, mostly ccache hits of the lean build), boot the
# lean tests on it (tests/run.sh --kernel lean with PX_LEAN_FLAVOUR=mutant:
# the same boots, labels and declared checks as the lean kernel) and
# report which checks failed.  A mutant is killed when a check fails; the
# report counts the distinct check names that did, and a mutant that no
# check kills is a hole in the suite (exit 1).
#
# Usage: kernel/mutants/run.sh [--only REGEX] [--all-tests]
#   --only REGEX   only the mutants whose name matches
#   --all-tests    every lean boot of the suite, not only the mutant's
#                  "# tests:" scripts (the full lean run: ~10 min each)
# Output: build/mutants/<date-time>/NAME/ (build log, the test run's
# summary), report.txt there (also printed).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cli_prog=mutants
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
only=. all=''
while [ $# -gt 0 ]; do
	case $1 in
	--only) checkarg "$1" $# "${2-}" '.' REGEX; only=$2; shift ;;
	--all-tests) all=1 ;;
	-h|--help) usage ;;
	*) usage "unknown option '$1'" ;;
	esac
	shift
done
# shellcheck source=kernel/mutants/tree.sh
. "$top/kernel/mutants/tree.sh"
mutant_tree_init
out=$top/build/mutants/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
report=$out/report.txt
printf '%-22s %7s %8s  %s\n' mutant failed distinct "checks that failed (distinct)" > "$report"
holes=0
for m in "$top"/kernel/mutants/*.patch; do
	name=$(basename "$m" .patch)
	echo "$name" | grep -qE -- "$only" || continue
	d=$out/$name
	mkdir -p "$d"
	tests=$(sed -n 's/^# tests: *//p' "$m")
	[ -n "$all" ] || [ -n "$tests" ] || die "$m: no '# tests:' line"
	echo "mutants: $name: $(sed -n 's/^# breaks: *//p' "$m")"
	if ! mutant_build "$m" "$d/build.log"; then
		printf '%-22s %7s %8s  %s\n' "$name" - - "did not build: $d/build.log" >> "$report"
		holes=$((holes + 1))
		continue
	fi
	set -- --kernel lean --keep
	[ -n "$all" ] || set -- "$@" --only "$tests"
	PX_LEAN_FLAVOUR=mutant "$top/tests/run.sh" "$@" > "$d/tests.log" 2>&1 || :
	# A check the expected files do not know yet ran (whatever its
	# verdict): not a kill.
	grep '^FAIL ' "$d/tests.log" | grep -v ' - reported, not declared in ' > "$d/failed" || :
	n=$(wc -l < "$d/failed")
	names=$(sed 's/^FAIL \[[^]]*\] \([^ ]*\).*/\1/' "$d/failed" | LC_ALL=C sort -u)
	distinct=$(echo "$names" | grep -c . || :)
	[ "$n" -gt 0 ] || holes=$((holes + 1))
	printf '%-22s %7s %8s  %s\n' "$name" "$n" "$distinct" \
		"$(echo "$names" | tr '\n' ' ' | sed 's/ $//')" >> "$report"
	tail -1 "$d/tests.log" | sed "s/^/mutants: $name: /"
done
mutant_reset
echo
cat "$report"
echo "mutants: report in $report"
[ "$holes" = 0 ] || { echo "mutants: $holes mutant(s) not killed (or not built)" >&2; exit 1; }
