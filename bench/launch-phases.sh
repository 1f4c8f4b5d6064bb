#!/usr/bin/env bash
# Where a landlock launch spends its time, phase by phase, in the three
# settings of landlock-launch.sh (empty HOME, large synthetic HOME, 50,000-file
# worktree), from the marks `oms run` logs at debug level
# (sdk/include/oms/launch_phase.hpp) set against this script's own clock:
#   exec to main        fork and exec by this shell, then the binary's start:
#                       loading, relocation, static initialisers
#   config, plugins     options, config files, the nine plugins, backend choice
#   private HOME        the run folder, .gitconfig, toolchain links, .npmrc
#   policy              every policy plugin's rules (toolchain roots, secrets)
#   before the backend  warnings, the repository record, the refusal log
#   plan                the backend's plan, with the keypair search's walks
#   child set-up        namespaces, mounts, Landlock, seccomp, exec of `true`
#   command             `true` running and the sandbox's init ending
#   report              refusals, the run record, the failure line
#   exit                oms's own exit after its last mark
# Each setting runs four times first (the keypair search's cache warm, and
# the scan keeper vouching for its folders); then
# round after round, each setting once; the median of each phase.
# COLD=1 instead gives every run a new state folder and stops the build's
# scan keepers before it: a task's first run on a machine oms has not run
# on (no scan cache, no start verdict, no keeper), with no warm-up.
#
# Usage: bench/launch-phases.sh [BUILD_DIR]   (default: ./build)
#   RUNS=N          rounds (default 30)
#   COLD=1          each run cold, as above
#   BENCH_DIR=DIR   where the synthetic trees go (default: /home as root,
#                   else BUILD_DIR; bench_base_dir in synthetic-trees.sh; not
#                   below /tmp, see landlock-launch.sh)
set -euo pipefail

build_dir=${1:-build}
oms=$(realpath "$build_dir/bin/oms")
runs=${RUNS:-30}
source "$(dirname "$0")/synthetic-trees.sh"
scratch=$(mktemp -d "$(bench_base_dir "$build_dir")/oms-phases-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
source "$(dirname "$0")/machine.sh"
describe_machine
make_synthetic_trees "$scratch"
echo "synthetic HOME: $empty_home ($(entries_beside "$empty_home") entries beside its path)"

marks=(start plugins-loaded private-home policy launch plan command-started command-ended recorded)
phases=("exec to main" "config, plugins" "private HOME" "policy" "before the backend" "plan"
        "child set-up" "command" "report" "exit")
settings=(empty home tree)
declare -A home_of=([empty]=$empty_home [home]=$big_home [tree]=$empty_home)
declare -A worktree_of=([empty]=$small [home]=$small [tree]=$tree)

cold=${COLD:-0}
run_once() {  # setting: one run; appends its phases (microseconds) to $scratch/SETTING.PHASE
  local s=$1 h=${home_of[$1]} log=$scratch/log state=${home_of[$1]}/.local/state
  if [ "$cold" = 1 ]; then
    state=$(mktemp -d "$scratch/state-XXXXXX")
    "$(dirname "$0")/../tests/stop-scan-keepers.sh" "$build_dir" || true
  fi
  local before=$EPOCHREALTIME
  OMS_LOG=debug HOME=$h XDG_CONFIG_HOME=$h/.config XDG_STATE_HOME=$state \
    "$oms" run --sandbox landlock --worktree "${worktree_of[$s]}" -- true 2>"$log" >/dev/null
  local after=$EPOCHREALTIME
  local previous=${before/./} i at
  for i in "${!marks[@]}"; do
    at=$(sed -n "s/.*phase ${marks[$i]} at \([0-9]*\)$/\1/p" "$log")
    [ -n "$at" ] || { echo "launch-phases: no mark '${marks[$i]}' (setting $s):" >&2; cat "$log" >&2; exit 2; }
    echo $((at - previous)) >> "$scratch/$s.$i"
    previous=$at
  done
  echo $((${after/./} - previous)) >> "$scratch/$s.${#marks[@]}"
  echo $((${after/./} - ${before/./})) >> "$scratch/$s.total"
}

# Four warm-up runs each: the cache warm from the second, the scan keeper
# vouching from the third or fourth.
if [ "$cold" != 1 ]; then
  for s in "${settings[@]}"; do for _ in 1 2 3 4; do run_once "$s"; done; rm -f "$scratch/$s".*; done
fi
for ((round = 0; round < runs; ++round)); do
  for s in "${settings[@]}"; do run_once "$s"; done
done

median() {  # file of microseconds: median milliseconds
  sort -n "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m / 1000 }'
}
echo "$runs rounds$([ "$cold" = 1 ] && echo ", each run cold"), load average $(cut -d' ' -f1-3 /proc/loadavg); median ms of each phase"
printf '| %-20s | %12s | %12s | %12s |\n' phase "empty HOME" "large HOME" "50,000 files"
printf '|%s|%s|%s|%s|\n' ---------------------- -------------- -------------- --------------
for i in "${!phases[@]}"; do
  printf '| %-20s | %12s | %12s | %12s |\n' "${phases[$i]}" "$(median "$scratch/empty.$i")" \
    "$(median "$scratch/home.$i")" "$(median "$scratch/tree.$i")"
done
printf '| %-20s | %12s | %12s | %12s |\n' "whole run" "$(median "$scratch/empty.total")" \
  "$(median "$scratch/home.total")" "$(median "$scratch/tree.total")"
