# The synthetic HOMEs and worktrees of the landlock launch benchmarks
# (landlock-launch.sh, launch-phases.sh), sourced. make_synthetic_trees DIR
# sets empty_home, big_home (a pyenv of 11,000 folders, a rustup of 3,000, a
# ~/.cargo of 200), small (a worktree of one file) and tree (50,000 files in
# 5,000 folders, 5 of them keypair files), all below DIR.

# Where the trees go unless BENCH_DIR says: below /home as root, where
# users' HOMEs are, else in the build folder $1. It counts: landlock grants
# reads outside HOME entry by entry, one rule for each entry beside the
# folders on the way from / to HOME, so a HOME deep in a build tree costs
# more rules than /home/NAME does.
bench_base_dir() {
  if [ -n "${BENCH_DIR:-}" ]; then realpath "$BENCH_DIR"
  elif [ "$(id -u)" = 0 ] && [ -d /home ]; then echo /home
  else realpath "$1"; fi
}

# The entries beside the folders on the way from / to $1 (see above).
entries_beside() {
  local path=$1 count=0 parent
  while [ "$path" != / ]; do
    parent=$(dirname "$path")
    count=$((count + $(ls -A "$parent" | wc -l) - 1))
    path=$parent
  done
  echo "$count"
}

# A HOME with its own config and state (the scan cache lives in the state).
make_home() {
  mkdir -p "$1/.config" "$1/.local/state"
}

# `count` folders of three files each, 100 to a parent folder, below $1
# (one mkdir and one touch for all: a process per folder took minutes).
make_folders() {
  local base=$1 count=$2 i
  local folders=() files=()
  for ((i = 0; i < count; ++i)); do
    local folder=$base/group$((i / 100))/pkg$i
    folders+=("$folder")
    files+=("$folder/__init__.py" "$folder/core.py" "$folder/util.py")
  done
  printf '%s\0' "${folders[@]}" | xargs -0 mkdir -p
  printf '%s\0' "${files[@]}" | xargs -0 touch
}

make_synthetic_trees() {
  local d f k folder tree_folders=() tree_files=()
  empty_home=$1/empty-home
  big_home=$1/big-home
  make_home "$empty_home"
  make_home "$big_home"
  make_folders "$big_home/.pyenv/versions/3.12.0/lib/python3.12/site-packages" 11000
  make_folders "$big_home/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib" 3000
  make_folders "$big_home/.cargo/registry/index" 200
  mkdir -p "$big_home/.cargo/bin" "$big_home/.pyenv/shims" "$big_home/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin"

  small=$1/small
  mkdir -p "$small"
  echo 'fn main() {}' > "$small/main.rs"

  # The large worktree: 5,000 folders x 10 files, 5 of them keypair files.
  tree=$1/tree

  for ((d = 0; d < 5000; d++)); do
    folder=$tree/pkg$((d % 50))/mod$d
    tree_folders+=("$folder")
    for ((f = 0; f < 10; f++)); do tree_files+=("$folder/file$f.rs"); done
  done
  printf '%s\0' "${tree_folders[@]}" | xargs -0 mkdir -p
  printf '%s\0' "${tree_files[@]}" | xargs -0 touch
  for k in 7 400 999 2500 4999; do echo '[1,2,3]' > "$tree/pkg$((k % 50))/mod$k/file0-keypair.json"; done
  # The keypair search's cache trusts no record of a folder changed in the
  # last two seconds (incremental_scan.hpp): without this wait, the first
  # rounds would read a tree just made in full, which is not the case measured.
  sleep 3
}
