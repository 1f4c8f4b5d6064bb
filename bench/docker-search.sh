#!/usr/bin/env bash
# Launch cost of the docker backend with its keypair search at work: warm
# runs of `true` with an empty HOME and a tiny worktree, a large synthetic
# HOME, and a 50,000-file worktree (bench/synthetic-trees.sh), each its own
# task (its own warm container). With BASELINE_BUILD, that build's oms runs
# the same three settings in the same hyperfine call (a before/after measure
# under one load: each build gets trees and tasks of its own, since a warm
# container belongs to the build that started it).
#
# Usage: bench/docker-search.sh [BUILD_DIR]   (default: ./build)
#   RUNS=N              runs per command (default 20)
#   BASELINE_BUILD=DIR  also time DIR/bin/oms
#   BENCH_DIR=DIR       where the trees go (default: BUILD_DIR; not below /tmp,
#                       a write root of every run)
# Needs a running Docker daemon (tests/docker/start-dockerd.sh), hyperfine and
# bash. Prints the mean of each command and, with a baseline, each setting's
# ratio to it; exits 1 when a setting is more than 1.10x its baseline.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
build_dir=${1:-$source_dir/build}
runs=${RUNS:-20}
command -v hyperfine >/dev/null || { echo "docker-search: hyperfine is not installed" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "docker-search: no Docker daemon (tests/docker/start-dockerd.sh)" >&2; exit 1; }
image=${OMS_BENCH_IMAGE:-$("$source_dir"/tests/docker/build-test-image.sh)}
source "$here/synthetic-trees.sh"

scratch=$(mktemp -d "$(realpath "${BENCH_DIR:-$build_dir}")/ds-XXXX")  # short: the warm runner's socket lies in the state folder
builds=("$(realpath "$build_dir")")
[ -n "${BASELINE_BUILD:-}" ] && builds+=("$(realpath "$BASELINE_BUILD")")
declare -A home_of worktree_of
settings=(empty home tree)

# One set of trees and tasks per build.
prepare_build() {
    local n=$1 oms=${builds[$1]}/bin/oms s
    make_synthetic_trees "$scratch/b$n"
    home_of[$n.empty]=$empty_home home_of[$n.home]=$big_home home_of[$n.tree]=$empty_home
    worktree_of[$n.empty]=$small worktree_of[$n.home]=$small worktree_of[$n.tree]=$tree
    for s in "${settings[@]}"; do
        local h=${home_of[$n.$s]} w=${worktree_of[$n.$s]}
        mkdir -p "$h/.config/oms"
        printf 'image = "%s"\n' "$image" >"$h/runtime.toml"
        printf '[plugin.docker]\nmanifest = "%s"\nwarm = true\n' "$h/runtime.toml" >"$h/.config/oms/config.toml"
        chown -R 65534:65534 "$w" 2>/dev/null || true
    done
}
state_of() { echo "$scratch/s$1${2:0:1}"; }  # build index, setting
run_line() {  # build index, setting: the command line hyperfine runs
    local n=$1 s=$2 h=${home_of[$1.$2]}
    echo "env HOME=$h XDG_CONFIG_HOME=$h/.config XDG_STATE_HOME=$(state_of "$n" "$s") ${builds[$n]}/bin/oms run --sandbox docker --worktree ${worktree_of[$1.$2]} -- true"
}
cleanup() {
    for n in "${!builds[@]}"; do
        for s in "${settings[@]}"; do
            local h=${home_of[$n.$s]:-}
            [ -n "$h" ] || continue
            env HOME="$h" XDG_CONFIG_HOME="$h/.config" XDG_STATE_HOME="$(state_of "$n" "$s")" \
                "${builds[$n]}/bin/oms" task end --worktree "${worktree_of[$n.$s]}" >/dev/null 2>&1 || true
        done
    done
    rm -rf "$scratch"
}
trap cleanup EXIT

arguments=()
for n in "${!builds[@]}"; do
    prepare_build "$n"
    for s in "${settings[@]}"; do
        line=$(run_line "$n" "$s")
        $line >/dev/null  # the warm container starts, the search's first walk
        arguments+=(-n "b$n $s" "$line")
    done
done
csv=$scratch/results.csv
hyperfine --style basic --warmup 2 --runs "$runs" --export-csv "$csv" "${arguments[@]}" >&2

echo "machine: kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F, -v baseline="${BASELINE_BUILD:+1}" 'NR > 1 { gsub(/"/, "", $1); mean[$1] = $2 * 1000 }
END {
    split("empty home tree", s, " ")
    names["empty"] = "empty HOME, tiny worktree"; names["home"] = "large HOME, tiny worktree"
    names["tree"] = "empty HOME, 50,000-file worktree"
    status = 0
    for (i = 1; i <= 3; i++) {
        printf "oms run, warm, %-34s %8.1f ms", names[s[i]], mean["b0 " s[i]]
        if (baseline) {
            ratio = mean["b0 " s[i]] / mean["b1 " s[i]]
            printf "   baseline %8.1f ms   %.2fx", mean["b1 " s[i]], ratio
            if (ratio > 1.10) status = 1
        }
        printf "\n"
    }
    exit status
}' "$csv"
