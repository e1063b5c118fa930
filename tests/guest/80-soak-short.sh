#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The soak, short: tests/soak/guest-soak.sh for 60 s on 8 vCPUs (over-
# committed on purpose), once per return-migration strategy, the two boots
# side by side (16 vCPUs on the host's cores: more overcommit, and the
# fixed 60 s are spent once) -- locktorture
# with nested locks, the ww_mutex selftest in a loop, every inversion
# scenario in loops, football pinned and --float, renamedemo and cyclictest,
# all at once.  Its checks: locktorture SUCCESS with writes and no failure,
# every ww_mutex load passed, every lab run finished with the counts it was
# asked for, the pinned football ball never moved, cyclictest ran on every
# CPU.  The runner's kernel-log-clean covers the console.  The long soak is
# tests/soak.sh (make soak).
#
# Usage: sh 80-soak-short.sh   (in the guest; SOAK_SECONDS, default 60)
# pxtest-boot: debug
# pxtest-boot: debug proxy_exec=enable,return=ttwu
# pxtest-cpus: 8
# pxtest-timeout: 720
# pxtest-parallel: yes
set -u
exec sh soak/guest-soak.sh -d "${SOAK_SECONDS:-60}" -o "${PX_OUT:-/tmp}/soak"
