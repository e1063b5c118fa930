#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's linux-source-6.12 into build/linux as a git tree whose
# first commit is the pristine base, then apply kernel/series with git am.
# Idempotent: if the tree's commits on top of the base already match the
# series (by whitespace-sensitive patch-id), nothing is touched, so file
# mtimes stay and make rebuilds only what changed.  A patch that fails to
# apply stops here, naming the patch and showing the conflict.
#
# Usage: kernel/prepare-tree.sh [--force]
#   --force   re-apply the whole series onto the pristine base even when
#             the tree already matches it (every file is touched: a full
#             kernel rebuild follows)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${PX_TREE:-$top/build/linux}
tarball=${PX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
series=$top/kernel/series
patches=$top/kernel/patches
export GIT_AUTHOR_NAME=proxyexec GIT_AUTHOR_EMAIL=proxyexec@localhost
export GIT_COMMITTER_NAME=proxyexec GIT_COMMITTER_EMAIL=proxyexec@localhost

cli_prog=prepare-tree
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
force=
case $#:${1-} in
0:) ;;
1:--force) force=1 ;;
*:-h|*:--help) usage ;;
*) usage "unknown argument '$1'" ;;
esac

# After the tree matches the series: the trace event header must be the one
# in tracepoints/, and build/linux-dev (a worktree of this repository, where
# patches are edited) must exist.  build/linux itself is only ever reset to
# the series, so a kernel build never sees half-edited sources.
finish() {
	hdr=$tree/include/trace/events/sched_proxy.h
	if [ -f "$hdr" ] && ! cmp -s "$hdr" "$top/tracepoints/sched_proxy.h"; then
		die "tracepoints/sched_proxy.h and the series' include/trace/events/sched_proxy.h differ: copy one onto the other"
	fi
	dev=$top/build/linux-dev
	if [ ! -e "$dev/.git" ]; then
		git -C "$tree" worktree prune
		git -C "$tree" branch -f dev HEAD
		git -C "$tree" worktree add -q "$dev" dev
		echo "prepare-tree: created the development tree $dev (branch dev)"
	fi
	exit 0
}

[ -f "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.12 (make deps)"

if [ ! -d "$tree/.git" ]; then
	echo "prepare-tree: extracting $tarball"
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -C "$tree.tmp" --strip-components=1 -xJf "$tarball"
	git -C "$tree.tmp" init -q -b base
	# Debian's .gitignore ignores "/*"; force-add the pristine tree.
	git -C "$tree.tmp" add -A -f
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$tree.tmp" commit -q -m "linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown) (pristine)"
	git -C "$tree.tmp" tag pristine
	git -C "$tree.tmp" checkout -q -b proxyexec
	mv "$tree.tmp" "$tree"
fi

cd "$tree"
git diff --quiet HEAD || die "$tree has uncommitted changes: commit them and run kernel/export-patches.sh, or git -C $tree checkout ."

# Patch-ids of the series and of the tree's commits since pristine.
want=$(mktemp); have=$(mktemp)
trap 'rm -f "$want" "$have"' 0
grep -v -e '^#' -e '^[[:space:]]*$' "$series" | while read -r p; do
	[ -f "$patches/$p" ] || die "series names $p but kernel/patches/$p is missing"
	git patch-id --verbatim < "$patches/$p" | cut -d' ' -f1
done > "$want"
git log --reverse --format=%H pristine..HEAD | while read -r c; do
	git show "$c" | git patch-id --verbatim | cut -d' ' -f1
done > "$have"

if [ -z "$force" ] && cmp -s "$want" "$have"; then
	echo "prepare-tree: $tree is up to date ($(wc -l < "$want") patches)"
	finish
fi

# Keep the longest common prefix, re-apply the rest.
n=0
while [ -z "$force" ]; do
	a=$(sed -n "$((n + 1))p" "$want"); b=$(sed -n "$((n + 1))p" "$have")
	[ -n "$a" ] && [ "$a" = "$b" ] || break
	n=$((n + 1))
done
git am --abort >/dev/null 2>&1 || true
git reset -q --hard "$(git rev-list --reverse pristine..HEAD | sed -n "${n}p" | grep . || echo pristine)"
i=0
grep -v -e '^#' -e '^[[:space:]]*$' "$series" | while read -r p; do
	i=$((i + 1))
	[ "$i" -le "$n" ] && continue
	if ! git am -q --3way "$patches/$p" >/dev/null 2>&1; then
		echo "prepare-tree: FAILED to apply kernel/patches/$p" >&2
		git am --show-current-patch=diff 2>/dev/null | head -20 >&2 || true
		git diff --diff-filter=U 2>/dev/null | head -60 >&2 || true
		git am --abort >/dev/null 2>&1 || true
		exit 1
	fi
	echo "prepare-tree: applied $p"
done
finish
