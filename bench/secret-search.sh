#!/usr/bin/env bash
# The keypair search every backend but landlock calls at each start
# (find_secrets, the SDK's oms::secret-search: docker, seatbelt, oms verify,
# the bwrap example), timed alone on the 50,000-file worktree of
# bench/synthetic-trees.sh, with the page cache warm. With BASELINE_BUILD,
# that build's search is timed in the same call, rounds alternating.
#
# Usage: bench/secret-search.sh [BUILD_DIR]   (default: ./build)
#   RUNS=N              searches per round (default 15), 3 rounds
#   BASELINE_BUILD=DIR  also time DIR's search (a build of another commit:
#                       its source folder is read from DIR/CMakeCache.txt)
#   BENCH_DIR=DIR       where the tree goes (default: BUILD_DIR)
# Needs a C++ compiler (c++). Prints each build's median and fastest search.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(realpath "${1:-$here/../build}")
runs=${RUNS:-15}
source "$here/synthetic-trees.sh"
scratch=$(mktemp -d "$(realpath "${BENCH_DIR:-$build_dir}")/ss-XXXX")
trap 'rm -rf "$scratch"' EXIT
make_synthetic_trees "$scratch/trees"

# The source folder a build was configured from, and its search library.
source_of() { sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt"; }
compile_for() {
  local build=$1 out=$2 source
  source=$(source_of "$build")
  c++ -O2 -std=c++17 -I"$source/sdk/include" "$here/secret-search-walk.cpp" \
    "$build/sdk/liboms_secret_search.a" -pthread -o "$out"
}

builds=("$build_dir")
[ -n "${BASELINE_BUILD:-}" ] && builds+=("$(realpath "$BASELINE_BUILD")")
for i in "${!builds[@]}"; do compile_for "${builds[$i]}" "$scratch/walk$i"; done
"$scratch/walk0" "$tree" 2 >/dev/null  # the page cache warm for everyone

declare -A medians
for round in 1 2 3; do
  for i in "${!builds[@]}"; do
    read -r median fastest < <("$scratch/walk$i" "$tree" "$runs")
    medians[$i]+="$median "
    echo "round $round: ${builds[$i]}: median $median ms, fastest $fastest ms"
  done
done
for i in "${!builds[@]}"; do
  echo "medians of the rounds, ${builds[$i]}: ${medians[$i]}ms"
done
