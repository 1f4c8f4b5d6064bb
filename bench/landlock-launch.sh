#!/usr/bin/env bash
# Launch cost of the landlock backend, measured against baselines in the same
# call: median wall time of
#   oms run --sandbox landlock -- true     (default policy, every plugin loaded)
#   env true                               (the baseline: two execs, one process)
#   bwrap --unshare-all --ro-bind / / true (a namespace sandbox for comparison)
#   launch-floor 14 100 true               (bench/launch-floor.c: the least a
#                                           namespace + Landlock launcher does,
#                                           with oms's count of mounts and rules)
# then the same oms run in a worktree of 20,000 files in 2,000 folders with a
# few keypair files, to show how start-up grows with the worktree.
#
# Usage: bench/landlock-launch.sh [BUILD_DIR]   (default: ./build)
#   RUNS=N  runs per command (default 60)
#   BASELINE_BUILD=DIR  also time that build's oms (say, the last release)
#                       in the same hyperfine call as this one, and print
#                       the ratio and difference: a before/after measure
#                       taken under the same conditions
# Needs hyperfine and bwrap. Prints the medians and both ratios; exits 1 when
# oms exceeds 1.5x `env true` or is not below bwrap.
set -euo pipefail

build_dir=${1:-build}
oms=$(realpath "$build_dir/bin/oms")
runs=${RUNS:-60}
for tool in hyperfine bwrap cc; do
  command -v "$tool" >/dev/null || { echo "landlock-launch: $tool is required" >&2; exit 2; }
done

scratch=$(mktemp -d /tmp/oms-bench-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export HOME=$scratch/home XDG_CONFIG_HOME=$scratch/config XDG_STATE_HOME=$scratch/state
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$scratch/small"
echo 'fn main() {}' > "$scratch/small/main.rs"

# The large worktree: 2,000 folders x 10 files, 5 of them keypair files.
big=$scratch/big
for ((d = 0; d < 2000; d++)); do
  mkdir -p "$big/pkg$((d % 50))/mod$d"
  for ((f = 0; f < 10; f++)); do : > "$big/pkg$((d % 50))/mod$d/file$f.rs"; done
done
for k in 7 400 999 1500 1999; do echo '[1,2,3]' > "$big/pkg$((k % 50))/mod$k/deploy-keypair.json"; done

# The floor program makes namespaces without a user namespace: root only.
floor=$scratch/launch-floor
cc -O2 -o "$floor" "$(dirname "$0")/launch-floor.c"
floor_run="$floor 14 100 /usr/bin/true"
floor_args=("$floor_run")
if [ "$(id -u)" != 0 ]; then
  echo "landlock-launch: not root, so the floor line is skipped" >&2
  floor_args=()
fi

run_small="$oms run --sandbox landlock --worktree $scratch/small -- true"
baseline_args=()
if [ -n "${BASELINE_BUILD:-}" ]; then
  baseline_oms=$(realpath "$BASELINE_BUILD/bin/oms")
  run_baseline="$baseline_oms run --sandbox landlock --worktree $scratch/small -- true"
  $run_baseline || { echo "landlock-launch: '$run_baseline' failed" >&2; exit 2; }
  baseline_args=("$run_baseline")
fi
run_big="$oms run --sandbox landlock --worktree $big -- true"
# Fail early, with the reason, when oms cannot run here at all.
$run_small || { echo "landlock-launch: '$run_small' failed" >&2; exit 2; }

median() {  # median seconds of command $2 in hyperfine CSV $1
  awk -F, -v cmd="$2" 'NR > 1 && $1 == cmd { print $4 }' "$1"
}

# Two more lines split oms's cost: starting the binary alone, and loading
# every plugin + assembling and rendering the policy without running it.
version="$oms --version"
policy="$oms policy --sandbox landlock --worktree $scratch/small"
hyperfine -N --warmup 5 --runs "$runs" --export-csv "$scratch/launch.csv" \
  "env true" "$run_small" "bwrap --unshare-all --ro-bind / / true" "$run_big" "$version" "$policy" \
  "${floor_args[@]}" "${baseline_args[@]}" >&2

env_s=$(median "$scratch/launch.csv" "env true")
oms_s=$(median "$scratch/launch.csv" "$run_small")
bwrap_s=$(median "$scratch/launch.csv" "bwrap --unshare-all --ro-bind / / true")
big_s=$(median "$scratch/launch.csv" "$run_big")
version_s=$(median "$scratch/launch.csv" "$version")
policy_s=$(median "$scratch/launch.csv" "$policy")
floor_s=$(median "$scratch/launch.csv" "$floor_run")
floor_s=${floor_s:-0}
baseline_s=0
[ -n "${BASELINE_BUILD:-}" ] && baseline_s=$(median "$scratch/launch.csv" "$run_baseline")

awk -v e="$env_s" -v o="$oms_s" -v b="$bwrap_s" -v g="$big_s" -v v="$version_s" -v p="$policy_s" -v f="$floor_s" \
    -v base="$baseline_s" 'BEGIN {
  printf "median env true                      %8.2f ms\n", e * 1000
  printf "median oms run --sandbox landlock    %8.2f ms\n", o * 1000
  printf "median bwrap --unshare-all           %8.2f ms\n", b * 1000
  printf "median oms run, 20,000-file worktree %8.2f ms (+%.2f ms)\n", g * 1000, (g - o) * 1000
  printf "median oms --version (binary start)  %8.2f ms\n", v * 1000
  printf "median oms policy (plugins, no run)  %8.2f ms\n", p * 1000
  if (f > 0) printf "median launch floor (C, no policy)   %8.2f ms\n", f * 1000
  printf "ratio oms / env true: %.2fx (target <= 1.5x)\n", o / e
  printf "ratio oms / bwrap:    %.2fx (target < 1x)\n", o / b
  printf "ratio big / small worktree: %.2fx\n", g / o
  if (f > 0) printf "ratio floor / env true: %.2fx (no launcher of this kind does better here)\n", f / e
  if (base > 0) printf "median oms run, baseline build        %8.2f ms\nratio oms / baseline build: %.2fx (%+.2f ms)\n", base * 1000, o / base, (o - base) * 1000
  exit !(o / e <= 1.5 && o < b)
}'
