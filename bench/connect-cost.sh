#!/usr/bin/env bash
# What the landlock init's connect watch costs a command: every connect
# waits while the run's init reads where it goes (off_loopback_watch.hpp).
# bench/connect-loop.c times COUNT loopback TCP connects (accepted and
# closed), and COUNT UDP datagrams sent with sendto and received (not
# watched: the control), bare on the host (the baseline) and inside `oms
# run` (landlock, the run's own network namespace), alternating, ROUNDS
# times; the median of each, and the ratio to the baseline, in one call.
#
# Usage: bench/connect-cost.sh [BUILD_DIR]   (default: ./build)
#   ROUNDS=N   rounds (default 9)
#   COUNT=N    operations a round (default 20000)
set -euo pipefail

build_dir=${1:-build}
oms=$(realpath "$build_dir/bin/oms")
rounds=${ROUNDS:-9}
count=${COUNT:-20000}
# In the build tree, not under /tmp: a landlock run has a /tmp of its own.
scratch=$(mktemp -d "$(realpath "$build_dir")/oms-connect-cost-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cc -O2 -o "$scratch/connect-loop" "$(dirname "$0")/connect-loop.c"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for kind in tcp udp; do
  : > "$scratch/bare.$kind"
  : > "$scratch/oms.$kind"
  for _ in $(seq "$rounds"); do
    "$scratch/connect-loop" "$kind" "$count" >> "$scratch/bare.$kind"
    "$oms" run --sandbox landlock --worktree "$scratch" -- ./connect-loop "$kind" "$count" >> "$scratch/oms.$kind"
  done
done

printf '%-36s %12s %12s %8s\n' "operation ($count a round, $rounds rounds)" bare "oms run" ratio
for kind in tcp udp; do
  bare=$(median < "$scratch/bare.$kind")
  inside=$(median < "$scratch/oms.$kind")
  label=$([ "$kind" = tcp ] && echo "TCP connect, accept, close" || echo "UDP sendto with destination, recv")
  awk -v l="$label" -v b="$bare" -v i="$inside" \
    'BEGIN { printf "%-36s %9.2f us %9.2f us %7.2fx\n", l, b / 1000, i / 1000, i / b }'
done
