#!/bin/sh
# Runs ctest again as an ordinary user, because real users are not root:
# root passes permission checks (a mode-000 folder, another user's file) that
# an attack as a user must get through, and the landlock backend takes
# another path without root (a user namespace instead of real capabilities).
#
#   tests/run-as-user.sh BUILD_DIR [ctest arguments...]
#
# Needs root. Creates the user `omstest` (uid 1500 unless taken) with a home
# of its own, lets it into the docker group when there is one (the docker
# tests talk to dockerd as a user would), and gives it exactly what the tests
# need: traverse rights on the folders above the build tree and the source
# tree, read and write rights in the build tree (ACLs for that one user:
# nothing else about the permissions changes).
set -eu
build=$(cd "$1" && pwd)
shift
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
user=omstest

if [ "$(id -u)" != 0 ]; then
    echo "run-as-user: not root: the suite already ran as an ordinary user" >&2
    exit 0
fi
if ! id "$user" >/dev/null 2>&1; then
    uid_option=""
    getent passwd 1500 >/dev/null || uid_option="-u 1500"
    # shellcheck disable=SC2086
    useradd -m $uid_option -s /bin/sh "$user"
fi
if getent group docker >/dev/null; then usermod -aG docker "$user"; fi
home=$(getent passwd "$user" | cut -d: -f6)

# Traverse (x) on every folder from / down to both trees, only where the
# user lacks it: a named-user entry replaces what "other" gave (an entry of
# just x on /tmp would take away the right to create files there).
grant_traverse() {
    folder=$1
    while [ "$folder" != / ]; do
        runuser -u "$user" -- test -x "$folder" || setfacl -m "u:$user:x" "$folder"
        folder=$(dirname "$folder")
    done
}
grant_traverse "$build"
grant_traverse "$source_dir"
setfacl -R -m "u:$user:rX" "$source_dir"
setfacl -R -m "u:$user:rwX" "$build"
setfacl -R -d -m "u:$user:rwX" "$build"

# A device file outside /dev that the user may open (a copy of /dev/zero,
# mode 0666): the landlock tests check it does not open inside a run. Only
# root can make one, so it is made here for the user's pass.
# The user can write the build tree: whatever else is at the name (a link
# the user's pass left) is removed, never followed, and the node is made
# with its mode at once (no chmod on a name the user could swap).
node="$build/test-device-node"
if [ -L "$node" ] || [ ! -c "$node" ]; then
    rm -f "$node"
    mknod -m 0666 "$node" c 1 5
fi

echo "run-as-user: ctest as $user (uid $(id -u "$user")) in $build" >&2
cd "$build"
# A login-like environment: the user's own HOME, no root's variables.
exec runuser -u "$user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user" LOGNAME="$user" \
    LANG=C.UTF-8 OMS_REQUIRE_DOCKER="${OMS_REQUIRE_DOCKER:-}" ctest "$@"
