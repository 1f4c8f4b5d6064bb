#!/bin/sh
# usage: deb_package.sh BUILD_DIR
# Builds the Debian packages with CPack into a folder of its own, unpacks them
# with dpkg-deb -x into a throw-away root (nothing is installed on the
# machine), and uses them from there: `oms doctor` finds the packaged plugins
# and default configuration relative to the packaged binary, one command runs
# confined by the packaged landlock backend, and oms-sdk.pc names the plugin
# folder. The test world lies in the build tree, outside the temp folders the
# landlock backend makes private to each run.
set -u
build=$(cd "$1" && pwd)
fail() { echo "TEST FAILURE: $1"; exit 1; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || fail "no project version in $build/CMakeCache.txt"
work=$(mktemp -d "$build/package-test.XXXXXX") || fail "mktemp"
# Files made here get plain modes, as in a packager's folder: the suite's
# build tree carries a default ACL for the ordinary user's pass
# (tests/run-as-user.sh), whose mask would show as group bits in the
# packages (lintian: executable documents).
if command -v setfacl >/dev/null 2>&1; then setfacl -b -k "$work" || fail "setfacl -b -k $work"; fi
# The packaged oms starts the packaged scan keeper: stopped with the test.
trap 'pkill -TERM -f "^$work/root/usr/lib/oms/plugins/oms-scan-keeper " 2>/dev/null; rm -rf "$work"' EXIT

cpack -G DEB -B "$work/packages" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack"; }
oms_deb="$work/packages/oms_${version}-1_$(dpkg --print-architecture).deb"
sdk_deb="$work/packages/oms-sdk_${version}-1_$(dpkg --print-architecture).deb"
[ -f "$oms_deb" ] && [ -f "$sdk_deb" ] || { ls "$work/packages"; fail "no oms and oms-sdk packages of version $version"; }

# The control fields: the project's version, Depends from what the files
# link (libc6), docker.io only suggested.
field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "$oms_deb" Version)" = "$version-1" ] || fail "oms Version is $(field "$oms_deb" Version), not $version-1"
[ "$(field "$sdk_deb" Version)" = "$version-1" ] || fail "oms-sdk Version is $(field "$sdk_deb" Version)"
field "$oms_deb" Depends | grep -q "libc6" || fail "oms does not depend on libc6: $(field "$oms_deb" Depends)"
field "$oms_deb" Depends | grep -q "boost\|libstdc++\|docker" && fail "oms depends on $(field "$oms_deb" Depends)"
field "$oms_deb" Suggests | grep -qx "docker.io" || fail "oms does not suggest docker.io"
field "$oms_deb" Recommends | grep -qx "bash-completion" || fail "oms does not recommend bash-completion"

# Lintian finds no error (what it reports on purpose is overridden in the
# package, each with its reason: packaging/*.lintian-overrides).
command -v lintian >/dev/null 2>&1 || fail "lintian is not installed (tests/install-deps.sh installs it)"
lintian --fail-on error "$oms_deb" "$sdk_deb" >"$work/lintian.log" 2>&1 || { cat "$work/lintian.log"; fail "lintian"; }

root="$work/root"
dpkg-deb -x "$oms_deb" "$root" && dpkg-deb -x "$sdk_deb" "$root" || fail "dpkg-deb -x"

# The AppArmor profile: userns for /usr/bin/oms, nothing else confined
# (AppArmor 4 syntax: read as text here, where no parser of that version
# nor an AppArmor kernel is). Its maintainer scripts, run against a root of
# their own (DPKG_ROOT): installed where the kernel mediates user
# namespaces, not elsewhere, and removed again.
profile="$root/usr/share/oms/apparmor/oms"
for line in "abi <abi/4.0>," "profile oms /usr/bin/oms flags=(unconfined) {" "  userns,"; do
    grep -qxF "$line" "$profile" || fail "the AppArmor profile lacks '$line'"
done
dpkg-deb -e "$oms_deb" "$work/control" || fail "dpkg-deb -e"
target="$work/dpkg-root"
mkdir -p "$target/etc/apparmor.d" "$target/usr/share/oms/apparmor"
cp "$profile" "$target/usr/share/oms/apparmor/oms"
DPKG_ROOT="$target" "$work/control/postinst" configure || fail "postinst configure failed"
[ -e "$target/etc/apparmor.d/oms" ] && fail "postinst installed the profile where the kernel does not mediate user namespaces"
mkdir -p "$target/sys/kernel/security/apparmor/features/namespaces"
: >"$target/sys/kernel/security/apparmor/features/namespaces/userns_create"
DPKG_ROOT="$target" "$work/control/postinst" configure || fail "postinst configure failed"
cmp -s "$profile" "$target/etc/apparmor.d/oms" || fail "postinst did not install the profile where the kernel mediates user namespaces"
DPKG_ROOT="$target" "$work/control/postrm" remove || fail "postrm remove failed"
[ -e "$target/etc/apparmor.d/oms" ] && fail "postrm left the profile"
for file in usr/bin/oms usr/lib/oms/plugins/oms-landlock.so usr/lib/oms/plugins/oms-docker-runner \
    usr/lib/oms/plugins/oms-scan-keeper \
    usr/share/oms/default.toml usr/bin/oms-backend-check usr/include/oms/sdk.h \
    usr/lib/cmake/oms-sdk/oms-sdk-config.cmake usr/lib/pkgconfig/oms-sdk.pc \
    usr/share/man/man1/oms.1.gz usr/share/man/man1/oms-run.1.gz usr/share/man/man1/oms-doctor.1.gz \
    usr/share/bash-completion/completions/oms usr/share/zsh/vendor-completions/_oms \
    usr/share/doc/oms/copyright usr/share/doc/oms-sdk/copyright \
    usr/share/doc/oms/user-guide.md usr/share/doc/oms/security-model.md usr/share/doc/oms/backends/landlock.md; do
    [ -e "$root/$file" ] || fail "/$file is not in the packages"
done

# oms from the unpacked root, in an environment of its own: no plugin path,
# no configuration of the caller's.
mkdir -p "$work/home/.ssh" "$work/task" && echo "packaged-secret" > "$work/home/.ssh/id_ed25519"
git -C "$work/task" init -q || fail "git init"
echo "source" > "$work/task/main.rs"
installed() {
    env -i PATH=/usr/bin:/bin HOME="$work/home" USER="$(id -un)" LOGNAME="$(id -un)" LANG=C.UTF-8 \
        XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.local/state" "$root/usr/bin/oms" "$@"
}
doctor=$(cd "$work/task" && installed doctor 2>&1) || { echo "$doctor"; fail "oms doctor failed"; }
echo "$doctor" | grep -qx "oms $version (plugin ABI [0-9]*\.[0-9]*)" || { echo "$doctor"; fail "doctor names no oms $version"; }
echo "$doctor" | grep -qx "  defaults  $root/usr/share/oms/default.toml" || { echo "$doctor"; fail "doctor reads no packaged default.toml"; }
echo "$doctor" | grep -qx "  $root/usr/lib/oms/plugins" || { echo "$doctor"; fail "doctor lists no packaged plugin folder"; }
echo "$doctor" | grep -q "^  landlock  *backend .* active$" || { echo "$doctor"; fail "the packaged landlock backend is not active"; }
echo "$doctor" | grep -qx "      $root/usr/lib/oms/plugins/oms-landlock.so" || { echo "$doctor"; fail "landlock is not the packaged file"; }
echo "$doctor" | grep -q "$build/lib/oms/plugins" && { echo "$doctor"; fail "doctor reached the build tree's plugins"; }

# One confined run: the worktree's file is read (the positive control), the
# real HOME's key is not.
out=$(cd "$work/task" && installed run --quiet --sandbox landlock -- /bin/sh -c \
    'echo ok; cat main.rs; cat "$1" 2>/dev/null || echo "key unreadable"' sh "$work/home/.ssh/id_ed25519" 2>&1)
status=$?
[ "$status" -eq 0 ] || { echo "$out"; fail "oms run exited $status"; }
[ "$out" = "ok
source
key unreadable" ] || { echo "$out"; fail "the packaged oms run printed something else"; }

# The SDK's pkg-config file: plugindir is the folder the packaged oms loads.
pc() { PKG_CONFIG_PATH="$root/usr/lib/pkgconfig" PKG_CONFIG_LIBDIR=/nonexistent pkg-config "$@" oms-sdk; }
plugindir=$(pc --variable=plugindir) || fail "pkg-config finds no oms-sdk"
[ "$plugindir" = /usr/lib/oms/plugins ] || fail "plugindir is '$plugindir', not /usr/lib/oms/plugins"
[ -f "$root$plugindir/oms-landlock.so" ] || fail "no plugins in $plugindir"
[ "$(pc --modversion)" = "$version" ] || fail "oms-sdk.pc has version $(pc --modversion), not $version"
[ "$(pc --cflags)" = "-I/usr/include" ] || [ "$(pc --cflags)" = "" ] || fail "oms-sdk cflags: $(pc --cflags)"
echo "oms $version packaged, unpacked and used from $root: ok"
