#!/bin/sh
# Installs what building and testing oms needs on Debian 12, and nothing when
# it is all there already. Run as root (or with sudo).
set -eu
# cargo: Debian's cargo and rustc, which the landlock tests build a real crate with.
# zsh: the zsh completion test runs its function.
# libseccomp-dev: plugins/seccomp generates the seccomp filters with it at
# build time (the binaries embed them and do not load libseccomp).
# clang-16 and libclang-rt-16-dev (libFuzzer and the sanitizers' runtimes):
# the fuzz targets (tests/run-fuzzers.sh).
# lintian: the package test checks the .deb has no lintian error.
packages="cmake g++ make pkg-config git
  libboost-dev libboost-program-options-dev libboost-filesystem-dev
  libtomlplusplus-dev nlohmann-json3-dev libspdlog-dev catch2 libseccomp-dev
  docker.io busybox-static bubblewrap hyperfine iproute2 acl cargo zsh
  clang-16 libclang-rt-16-dev lintian"
missing=""
for p in $packages; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
# node and npm: the npm tests (landlock, and docker's node image made from the
# host's node). Any install that gives both will do (Debian's packages, or a
# nodejs that bundles npm, which Debian's npm package would conflict with).
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
if [ -z "$missing" ]; then
    echo "install-deps: everything is installed"
    exit 0
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
