#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Export the development tree's commits since the pristine base into
# kernel/patches/ and rewrite kernel/series.  The tree is the source of
# truth: edit there (git commit --fixup / rebase -i), then run this.
#
# The development tree is build/linux-dev, a git worktree of build/linux
# (make dev-tree), so that build/linux -- what kernel/build.sh compiles --
# never changes under a running build.  Without it, build/linux is used.
#
# Usage: kernel/export-patches.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=export-patches
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
[ $# -eq 0 ] || usage "no arguments"
tree=${PX_TREE:-$top/build/linux-dev}
[ -e "$tree/.git" ] || tree=$top/build/linux
[ -e "$tree/.git" ] || die "no tree at $tree (make tree)"
git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes"
rm -f "$top"/kernel/patches/*.patch
git -C "$tree" format-patch -q --no-signature --zero-commit --no-numbered \
	-o "$top/kernel/patches" pristine..HEAD
( cd "$top/kernel/patches" && ls -1 *.patch ) > "$top/kernel/series" 2>/dev/null || : > "$top/kernel/series"
echo "export-patches: $(wc -l < "$top/kernel/series") patches in kernel/patches"
