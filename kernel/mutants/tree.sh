# SPDX-License-Identifier: GPL-2.0
# Sourced by kernel/mutants/run.sh and kernel/acct-cost.sh (after
# lib/sh/cli.sh, with $top set): the series with one patch on top, built
# as the mutant flavour in build/mutant/linux, a worktree of the series
# tree build/linux at its HEAD.  One user at a time: both scripts reset it.
series=$top/build/linux
tree=$top/build/mutant/linux

# mutant_tree_init: the series tree must exist and be committed; the
# worktree is made when missing.
mutant_tree_init() {
	[ -d "$series/.git" ] || die "no series tree at $series (make tree)"
	git -C "$series" diff --quiet HEAD || die "$series has uncommitted changes"
	if [ ! -e "$tree/.git" ]; then
		mkdir -p "$(dirname "$tree")"
		git -C "$series" worktree prune
		git -C "$series" worktree add -q --detach "$tree" HEAD
	fi
}

# mutant_reset: the worktree back at the series' HEAD.
mutant_reset() {
	git -C "$tree" checkout -q -f --detach "$(git -C "$series" rev-parse HEAD)"
}

# mutant_build PATCH LOG: the series' HEAD plus PATCH (dies if it does not
# apply), built as the mutant flavour with its image (touched files only:
# incremental); the build's output in LOG; non-zero if it did not build.
mutant_build() {
	mutant_reset
	git -C "$tree" apply "$1" || die "$1 does not apply to the series"
	"$top/kernel/build.sh" mutant > "$2" 2>&1 &&
		"$top/guest/mkinitramfs.sh" mutant >> "$2" 2>&1
}
