#!/bin/sh
# A first sandboxed run on a real example: a throw-away task worktree with a
# source file, a wallet keypair and a .git folder, and one command that tries
# what a careless or hostile command would try. Under a confining backend the
# reads of secrets, the writes outside the worktree and to .git, and the
# outbound connection fail, while the work inside the worktree succeeds.
# Then `oms explain` says which rule refused two of them.
#
#   docs/examples/first-run.sh [path/to/oms]      (default: build/bin/oms)
set -eu
oms=${1:-build/bin/oms}
task=$(mktemp -d /tmp/oms-first-run-XXXXXX)
trap 'rm -rf "$task"' EXIT
mkdir -p "$task/src" "$task/.git"
echo 'fn main() { println!("hello"); }' > "$task/src/main.rs"
# A keypair's shape (64 numbers), so oms hides it without naming it as a look-alike.
printf '[%s]\n' "$(seq -s, 1 64)" > "$task/wallet-keypair.json"
echo '[core]' > "$task/.git/config"

"$oms" doctor
echo
echo "== oms run in $task =="
"$oms" run --yes --worktree "$task" -- /bin/sh -c '
  try() { if eval "$2" >/dev/null 2>&1; then echo "  allowed: $1"; else echo "  denied:  $1"; fi; }
  try "read the worktree (src/main.rs)"      "cat src/main.rs"
  try "write the worktree (build.log)"       "echo ok > build.log"
  try "read wallet-keypair.json"             "cat wallet-keypair.json | grep -q 1"
  try "list / (names only, nothing is read)" "ls /"
  try "read your real HOME ($1/.profile)"   "cat \"$1/.profile\""
  echo "  your real HOME lists only: $(ls -A "$1" | tr "\n" " ")"
  try "write .git/config"                    "echo x >> .git/config"
  try "write /etc/oms-first-run"             "echo x > /etc/oms-first-run"
  try "see AWS_SECRET_ACCESS_KEY"            "test -n \"${AWS_SECRET_ACCESS_KEY:-}\""
  echo "  HOME is $HOME (private, removed after the run)"
' sh "$HOME"
rm -f /etc/oms-first-run 2>/dev/null || true
echo
echo "== why? =="
"$oms" explain --worktree "$task" read "$task/wallet-keypair.json"
"$oms" explain --worktree "$task" write "$task/.git/config"
