#!/usr/bin/env bash
# Launch cost of the landlock backend in three settings, measured against
# baselines in one call (median wall time of `true`). The commands are run
# in turn, one run each per round, so a change of the machine's load during
# the call weighs on all of them alike (on a shared 2-core machine, runs of
# one command after another drifted by 2x between commands):
#   empty   oms run, empty HOME, a worktree of one file
#   home    oms run, a large synthetic HOME (a pyenv of 11,000 folders, a
#           rustup of 3,000, a ~/.cargo of 200), the same small worktree
#   tree    oms run, empty HOME, a worktree of 50,000 files in 5,000 folders
#           with a few keypair files
# and empty and tree once more each with a new state folder every round: a
# task's first run (no scan cache, no start verdict; no target);
# as root, the empty setting twice more, each through nsenter into a mount
# namespace of its own, so both pay nsenter's exec: one with the host's
# /tmp, one with /tmp on a tmpfs (what the run folder's file system costs;
# the difference is the figure, not either line)
# and the baselines
#   env true
#   bwrap --unshare-all --ro-bind / / true
#   firejail --noprofile --quiet true (when firejail is installed)
#   codex sandbox -- true (Codex CLI's Linux sandbox, npm @openai/codex, when installed)
# It first prints what the figures depend on: the kernel, its HZ, whether
# RCU grace periods are expedited (/sys/kernel/rcu_expedited: a packet
# socket's bind and close wait for one, 0.05 ms expedited, 8 to 16 ms not),
# /tmp's file system (bench/machine.sh), and bench/kernel-waits.c's
# micro-measures (those waits, a raw socket's, a plain fork + exec, and a
# file made and removed in /tmp).
# The HOME is synthetic so the figure does not depend on the machine's own.
# Where it lies does count (bench_base_dir in synthetic-trees.sh): as root
# the trees go below /home, where users' HOMEs are, and the script prints
# how many entries lie beside HOME's path.
# Each oms setting runs twice first, so the keypair search's cache is warm,
# as it is from the second start of a task on.
# Rounds: the light commands (env, bwrap, the three warm oms lines, the
# binary alone, oms policy) take turns in rounds of their own, and the
# heavy ones (firejail, Codex, the new-state-folder and nsenter lines) in
# rounds after them. A line run right after Codex's 90 ms of Node was 0.8 to
# 1.2 ms slower than the same line elsewhere in the round (seen by swapping
# the order of the oms lines), which no light line should pay for another.
#
# Usage: bench/landlock-launch.sh [BUILD_DIR]   (default: ./build)
#   RUNS=N          rounds, so runs per command (default 40)
#   BENCH_DIR=DIR   where the synthetic trees go (default: /home as root,
#                   else BUILD_DIR). Not
#                   below /tmp or /var/tmp: those are write roots of every
#                   run, and oms keeps no scan cache in a write root.
#   BASELINE_BUILD=DIR  also time that build's oms in the three settings in
#                   the same call: a before/after measure under one load.
#                   The two builds share the user's scan keeper (one per
#                   user, in /tmp/oms-runs-UID): where their keepers differ,
#                   one build's runs walk the trees that the other's keeper
#                   would vouch for, so the 50,000-file line then measures
#                   the keeper, not the launch (its "keypair search" line
#                   says "0 roots answered"); time such builds in two calls
# Needs bwrap (and bash 5 for EPOCHREALTIME). Prints the medians and the ratios; exits 1 when
# a target is missed: home within 1.25x of empty and 2.5x of bwrap, tree
# within 2.5x of bwrap, no setting slower than 0.8x firejail.
set -euo pipefail

build_dir=${1:-build}
oms=$(realpath "$build_dir/bin/oms")
runs=${RUNS:-40}
for tool in bwrap; do
  command -v "$tool" >/dev/null || { echo "landlock-launch: $tool is required" >&2; exit 2; }
done

source "$(dirname "$0")/synthetic-trees.sh"
scratch=$(mktemp -d "$(bench_base_dir "$build_dir")/oms-bench-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# What the figures depend on, printed before them.
source "$(dirname "$0")/machine.sh"
describe_machine
if cc -O2 -o "$scratch/kernel-waits" "$(dirname "$0")/kernel-waits.c" 2>/dev/null; then
  echo "kernel: $("$scratch/kernel-waits" 15 2>&1)"
fi

# The three settings' HOMEs and worktrees: empty_home, big_home, small, tree.
make_synthetic_trees "$scratch"
echo "synthetic HOME: $empty_home ($(entries_beside "$empty_home") entries beside its path)"

# One oms command line per setting. Its environment is set by the shell, as
# a caller sets it, so an oms line costs one fork and one exec like every
# baseline line (through env(1) it paid a second exec, about 2 to 4.5 ms
# here, that no baseline paid). The baseline build gets a state folder of
# its own: two builds whose scan caches differ in format would otherwise
# each throw the other's cache away at every start.
oms_line() {  # binary home worktree [state folder name]
  echo "HOME=$2 XDG_CONFIG_HOME=$2/.config XDG_STATE_HOME=$2/.local/${4:-state} $1 run --sandbox landlock --worktree $3 -- true"
}
declare -A line
settings=(empty home tree)
line[empty]=$(oms_line "$oms" "$empty_home" "$small")
line[home]=$(oms_line "$oms" "$big_home" "$small")
line[tree]=$(oms_line "$oms" "$empty_home" "$tree")
commands=("env true" "bwrap --unshare-all --ro-bind / / true")
firejail_line=""
if command -v firejail >/dev/null; then
  firejail_line="firejail --noprofile --quiet true"
  commands+=("$firejail_line")
fi
codex_line=""
if command -v codex >/dev/null; then
  codex_line="codex sandbox -- true"
  commands+=("$codex_line")
fi
for s in "${settings[@]}"; do commands+=("${line[$s]}"); done
# The run folder's file system: two mount namespaces held open by a sleeping
# process each, one seeing the host's /tmp, one a tmpfs there.
temp_lines=()
if [ "$(id -u)" = 0 ] && command -v nsenter >/dev/null; then
  hold_namespace() {  # command run in a new mount namespace before it sleeps
    unshare -m --propagation private sh -c "$1; exec sleep 100000" >/dev/null 2>&1 &
    echo $!
  }
  host_temp_holder=$(hold_namespace true)
  tmpfs_holder=$(hold_namespace "mount -t tmpfs -o mode=1777 tmpfs /tmp")
  trap 'kill $host_temp_holder $tmpfs_holder 2>/dev/null; rm -rf "$scratch"' EXIT
  sleep 0.2
  temp_lines=("nsenter -t $host_temp_holder -m -- env ${line[empty]}"
              "nsenter -t $tmpfs_holder -m -- env ${line[empty]}")
  commands+=("${temp_lines[@]}")
fi
if [ -n "${BASELINE_BUILD:-}" ]; then
  baseline_oms=$(realpath "$BASELINE_BUILD/bin/oms")
  line[empty_before]=$(oms_line "$baseline_oms" "$empty_home" "$small" state-baseline)
  line[home_before]=$(oms_line "$baseline_oms" "$big_home" "$small" state-baseline)
  line[tree_before]=$(oms_line "$baseline_oms" "$empty_home" "$tree" state-baseline)
  for s in "${settings[@]}"; do commands+=("${line[${s}_before]}"); done
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Fail early, with the reason, when a command cannot run here at all; the
# second start of each oms line finds the scan cache warm, and from the
# third or fourth on the scan keeper (started by the first) vouches for the
# cached folders.
for c in "${commands[@]}"; do
  for _ in 1 2 3 4; do eval "$c" >/dev/null 2>&1 || { echo "landlock-launch: '$c' failed" >&2; eval "$c"; exit 2; }; done
done
# What the keypair search of each setting does now, as oms says at debug level.
for s in "${settings[@]}"; do
  echo "$s: $(env OMS_LOG=debug ${line[$s]} 2>&1 | sed -n 's/.*\[landlock\] keypair search: //p')"
  if [ -n "${BASELINE_BUILD:-}" ]; then
    echo "$s, baseline build: $(env OMS_LOG=debug ${line[${s}_before]} 2>&1 |
      sed -n 's/.*\[landlock\] keypair search: //p')"
  fi
done

# Two lines split oms's own cost: the binary alone, and loading every
# plugin and assembling and rendering the policy without running anything.
commands+=("$oms --version" "$(oms_line "$oms" "$empty_home" "$small" | sed 's/ run --sandbox/ policy --sandbox/; s/ -- true$//')")
version_line=${commands[-2]}
policy_line=${commands[-1]}
# A task's first run on this machine: each round a new state folder (no
# scan cache, no start verdict), made before the rounds so that the line
# pays nothing for it; not in the warm-up above.
for ((round = 0; round < runs; ++round)); do mkdir "$scratch/cold-empty-$round" "$scratch/cold-tree-$round"; done
cold_line() {  # HOME worktree state-folder-prefix
  echo "HOME=$1 XDG_CONFIG_HOME=$1/.config XDG_STATE_HOME=$scratch/$3-\$round $oms run --sandbox landlock --worktree $2 -- true"
}
commands+=("$(cold_line "$empty_home" "$small" cold-empty)" "$(cold_line "$empty_home" "$tree" cold-tree)")
cold_empty_line=${commands[-2]}
cold_tree_line=${commands[-1]}

# Round after round, each command once, the light ones first (see the top);
# wall times in microseconds, one file per command. Every line goes through
# eval, so that the shell's own work (parsing, the prefix assignments, one
# fork) is the same for all.
heavy_lines=("$cold_empty_line" "$cold_tree_line" "${temp_lines[@]}")
[ -n "$firejail_line" ] && heavy_lines+=("$firejail_line")
[ -n "$codex_line" ] && heavy_lines+=("$codex_line")
light=() heavy=()
for i in "${!commands[@]}"; do
  is_heavy=0
  for h in "${heavy_lines[@]}"; do [ "${commands[$i]}" = "$h" ] && is_heavy=1; done
  if [ $is_heavy = 1 ]; then heavy+=("$i"); else light+=("$i"); fi
done
for group in light heavy; do
  declare -n members=$group
  for ((round = 0; round < runs; ++round)); do
    for i in "${members[@]}"; do
      start=$EPOCHREALTIME
      eval "${commands[$i]}" >/dev/null 2>&1
      end=$EPOCHREALTIME
      echo $(( (${end/./} - ${start/./}) )) >> "$scratch/times.$i"
    done
  done
  unset -n members
done

median() {  # median milliseconds of command line $1
  local i
  for i in "${!commands[@]}"; do
    if [ "${commands[$i]}" = "$1" ]; then
      sort -n "$scratch/times.$i" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m / 1000 }'
      return
    fi
  done
}
env_ms=$(median "env true")
bwrap_ms=$(median "bwrap --unshare-all --ro-bind / / true")
firejail_ms=0
[ -n "$firejail_line" ] && firejail_ms=$(median "$firejail_line")
codex_ms=0
[ -n "$codex_line" ] && codex_ms=$(median "$codex_line")
empty_ms=$(median "${line[empty]}")
home_ms=$(median "${line[home]}")
tree_ms=$(median "${line[tree]}")
before=("" "" "")
if [ -n "${BASELINE_BUILD:-}" ]; then
  before=("$(median "${line[empty_before]}")" "$(median "${line[home_before]}")" "$(median "${line[tree_before]}")")
fi

host_temp_ms=0 tmpfs_ms=0
if [ ${#temp_lines[@]} -gt 0 ]; then
  host_temp_ms=$(median "${temp_lines[0]}")
  tmpfs_ms=$(median "${temp_lines[1]}")
fi
cold_empty_ms=$(median "$cold_empty_line")
cold_tree_ms=$(median "$cold_tree_line")
version_ms=$(median "$version_line")
policy_ms=$(median "$policy_line")
echo "$runs rounds, load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v v="$version_ms" -v p="$policy_ms" -v e="$env_ms" -v b="$bwrap_ms" -v f="$firejail_ms" -v c="$codex_ms" -v em="$empty_ms" -v hm="$home_ms" -v tm="$tree_ms" \
    -v ce="$cold_empty_ms" -v ct="$cold_tree_ms" -v ht="$host_temp_ms" -v tt="$tmpfs_ms" -v be="${before[0]}" -v bh="${before[1]}" -v bt="${before[2]}" 'BEGIN {
  printf "median env true                                   %8.2f ms\n", e
  printf "median bwrap --unshare-all --ro-bind / / true     %8.2f ms\n", b
  if (f > 0) printf "median firejail --noprofile true                   %8.2f ms\n", f
  if (c > 0) printf "median codex sandbox -- true                       %8.2f ms\n", c
  printf "median oms run, empty HOME, tiny worktree         %8.2f ms\n", em
  printf "median oms run, large HOME, tiny worktree         %8.2f ms\n", hm
  printf "median oms run, empty HOME, 50,000-file worktree  %8.2f ms\n", tm
  printf "median oms run, empty HOME, new state folder     %8.2f ms\n", ce
  printf "median oms run, 50,000 files, new state folder   %8.2f ms\n", ct
  if (ht > 0) {
    printf "median oms run, empty HOME, host /tmp (nsenter)   %8.2f ms\n", ht
    printf "median oms run, empty HOME, tmpfs /tmp (nsenter)  %8.2f ms\n", tt
  }
  printf "median oms --version (binary start)                %8.2f ms\n", v
  printf "median oms policy (plugins, policy, keypair search) %8.2f ms\n", p
  if (be != "") {
    printf "median baseline build, empty HOME                 %8.2f ms\n", be
    printf "median baseline build, large HOME                 %8.2f ms\n", bh
    printf "median baseline build, 50,000-file worktree       %8.2f ms\n", bt
  }
  ok = 1
  printf "ratio large HOME / empty HOME:   %.2fx (target <= 1.25x)\n", hm / em; ok = ok && hm / em <= 1.25
  printf "ratio large HOME / bwrap:        %.2fx (target <= 2.5x)\n", hm / b;  ok = ok && hm / b <= 2.5
  printf "ratio 50,000-file tree / bwrap:  %.2fx (target <= 2.5x)\n", tm / b;  ok = ok && tm / b <= 2.5
  printf "ratio empty HOME / bwrap:        %.2fx (target <= 2.5x)\n", em / b; ok = ok && em / b <= 2.5
  printf "ratio empty HOME / env true:     %.2fx\n", em / e
  if (c > 0) printf "ratio empty HOME / codex sandbox: %.2fx\n", em / c
  if (f > 0) {
    worst = em; if (hm > worst) worst = hm; if (tm > worst) worst = tm
    printf "ratio slowest setting / firejail: %.2fx (target <= 0.8x)\n", worst / f; ok = ok && worst <= 0.8 * f
  }
  exit !ok
}'
