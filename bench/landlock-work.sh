#!/usr/bin/env bash
# Real work under each launcher, against the same work bare, in one call:
#   - `gcc -c hello.c` and `python3 -c 'import json'` in a small worktree,
#     round after round, each launcher once per round; the median of each
#     and its ratio to bare;
#   - throughput: eight loops at once, each starting /bin/true under the
#     launcher for SECONDS; runs per second and failed runs.
# Launchers: bare, bwrap, firejail (when installed), Codex's `codex sandbox`
# (when installed), oms (landlock backend, a synthetic empty HOME and a state
# folder of its own, warm after four starts).
#
# Usage: bench/landlock-work.sh [BUILD_DIR]   (default: ./build)
#   RUNS=N          rounds for the single commands (default 30)
#   SECONDS_EACH=N  how long each launcher's eight loops run (default 10)
#   BENCH_DIR=DIR   where the worktree and HOME go (default: /home as root,
#                   else BUILD_DIR; bench_base_dir in synthetic-trees.sh; not
#                   below /tmp, see landlock-launch.sh)
# Prints the figures and the issue's targets; exits 1 when one is missed:
# oms's `gcc -c` at most 1.5x bare, oms's throughput at least firejail's.
set -euo pipefail

build_dir=${1:-build}
oms=$(realpath "$build_dir/bin/oms")
runs=${RUNS:-30}
seconds_each=${SECONDS_EACH:-10}
command -v bwrap >/dev/null || { echo "landlock-work: bwrap is required" >&2; exit 2; }
command -v gcc >/dev/null || { echo "landlock-work: gcc is required" >&2; exit 2; }

source "$(dirname "$0")/synthetic-trees.sh"
scratch=$(mktemp -d "$(bench_base_dir "$build_dir")/oms-work-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
work=$scratch/work
home=$scratch/home
mkdir -p "$work" "$home/.config" "$home/.local/state"
printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' > "$work/hello.c"

source "$(dirname "$0")/machine.sh"
describe_machine

# Each launcher as a prefix that runs the rest of the line in $work.
declare -A prefix=(
  [bare]=""
  [bwrap]="bwrap --unshare-all --ro-bind / / --dev /dev --tmpfs /tmp --bind $work $work --chdir $work"
  [oms]="HOME=$home XDG_CONFIG_HOME=$home/.config XDG_STATE_HOME=$home/.local/state $oms run --sandbox landlock --worktree $work --"
)
launchers=(bare bwrap)
if command -v firejail >/dev/null; then prefix[firejail]="firejail --noprofile --quiet"; launchers+=(firejail); fi
# workspace-write: Codex's mode that lets a command write its working folder
if command -v codex >/dev/null; then prefix[codex]="codex sandbox -c sandbox_mode='\"workspace-write\"' --"; launchers+=(codex); fi
launchers+=(oms)

# Full paths: a shell builtin (`true`) or a version manager's shim on PATH
# (pyenv's python3) would measure something else.
works=("/usr/bin/gcc -c hello.c -o hello.o" "/usr/bin/python3 -c 'import json'")
cd "$work"
for l in "${launchers[@]}"; do
  for w in "${works[@]}" /bin/true; do
    for _ in 1 2 3 4; do
      eval "${prefix[$l]} $w" >/dev/null 2>&1 || { echo "landlock-work: '$l: $w' failed" >&2; eval "${prefix[$l]} $w"; exit 2; }
    done
  done
done

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# The heavy launchers (firejail, Codex's 90 ms of Node) take their turns in
# rounds of their own, after the others: a command right after Codex ran
# about 1 ms slower than elsewhere in the round (landlock-launch.sh).
light=() heavy=()
for l in "${launchers[@]}"; do
  case $l in firejail|codex) heavy+=("$l") ;; *) light+=("$l") ;; esac
done
for group in light heavy; do
  declare -n members=$group
  for ((round = 0; round < runs; ++round)); do
    for wi in "${!works[@]}"; do
      for l in "${members[@]}"; do
        start=$EPOCHREALTIME
        eval "${prefix[$l]} ${works[$wi]}" >/dev/null 2>&1
        end=$EPOCHREALTIME
        echo $(( ${end/./} - ${start/./} )) >> "$scratch/t.$wi.$l"
      done
    done
  done
  unset -n members
done
median_ms() {
  sort -n "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m / 1000 }'
}

# Eight loops at once per launcher, launchers one after another.
loop() {  # launcher file: runs `true` until the deadline, one line per run (0 ok, else the status)
  local deadline=$(( ${EPOCHREALTIME/./} + seconds_each * 1000000 ))
  while (( ${EPOCHREALTIME/./} < deadline )); do
    if eval "${prefix[$1]} /bin/true" >/dev/null 2>&1; then echo 0; else echo $?; fi
  done >> "$2"
}
for l in "${launchers[@]}"; do
  for i in 1 2 3 4 5 6 7 8; do loop "$l" "$scratch/p.$l.$i" & done
  wait
done

echo "$runs rounds, load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
ok=1
for wi in "${!works[@]}"; do
  bare=$(median_ms "$scratch/t.$wi.bare")
  for l in "${launchers[@]}"; do
    m=$(median_ms "$scratch/t.$wi.$l")
    printf '%-28s %-9s %8.2f ms  %5.2fx bare\n' "${works[$wi]}" "$l" "$m" "$(awk -v m="$m" -v b="$bare" 'BEGIN { print m / b }')"
  done
  if [ "$wi" = 0 ]; then
    awk -v m="$(median_ms "$scratch/t.0.oms")" -v b="$bare" 'BEGIN { exit !(m <= 1.5 * b) }' || ok=0
  fi
done
declare -A rate
for l in "${launchers[@]}"; do
  total=$(cat "$scratch"/p."$l".* | wc -l)
  failed=$(cat "$scratch"/p."$l".* | grep -cv '^0$' || true)
  rate[$l]=$(awk -v n="$total" -v s="$seconds_each" 'BEGIN { printf "%.1f", n / s }')
  printf 'eight loops of /bin/true, %-9s %7s runs/s  (%d runs, %d failed)\n' "$l" "${rate[$l]}" "$total" "$failed"
  [ "$l" = oms ] && [ "$failed" -gt 0 ] && ok=0
done
echo "targets: oms gcc -c at most 1.5x bare; oms's eight loops at least firejail's runs/s"
if [ -n "${rate[firejail]:-}" ]; then
  awk -v o="${rate[oms]}" -v f="${rate[firejail]}" 'BEGIN { printf "ratio oms / firejail throughput: %.2fx\n", o / f; exit !(o >= f) }' || ok=0
fi
[ "$ok" = 1 ]
