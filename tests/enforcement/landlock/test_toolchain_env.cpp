// Real toolchains and git inside the sandbox (issue 10, items 1 and 2),
// through the real `oms run --sandbox landlock`: a HOME laid out like a
// rustup install whose `cargo` proxy fails unless it finds RUSTUP_HOME's
// default toolchain, the private HOME's .gitconfig, and USER/LOGNAME. Each
// next to its negative (the proxy without RUSTUP_HOME fails; the credential
// helper and the token URL never reach the command; a caller's USER=evil
// does not either).
#include "test_support.hpp"
#include "toolchain_runs.hpp"

#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <map>

using namespace oms::test;
namespace fs = std::filesystem;

namespace {

const char* const kToolchain = "stable-x86_64-unknown-linux-gnu";
const char* const kCargoToken = "CARGO-TOKEN-9f3e";

void write_script(const std::string& path, const std::string& body) {
    write_file(path, "#!/bin/sh\n" + body);
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
}

// ~/.cargo/bin/cargo is rustup's proxy: it needs RUSTUP_HOME (or a HOME that
// holds .rustup) to find the default toolchain, as the real one does.
void plant_rustup(const World& w) {
    write_script(w.home + "/.cargo/bin/cargo", R"SH(
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
toolchain=$(sed -n 's/^default_toolchain = "\(.*\)"$/\1/p' "$rustup_home/settings.toml" 2>/dev/null)
if [ -z "$toolchain" ]; then
    echo "error: rustup could not choose a version of cargo to run, because one wasn't specified explicitly, and no default is configured." >&2
    exit 1
fi
exec "$rustup_home/toolchains/$toolchain/bin/cargo" "$@"
)SH");
    write_file(w.home + "/.rustup/settings.toml", std::string("version = \"12\"\ndefault_toolchain = \"") + kToolchain + "\"\n");
    // The toolchain's cargo: --version, and an offline build that reads the
    // download cache and writes the worktree's target/ and the cache.
    write_script(w.home + "/.rustup/toolchains/" + kToolchain + "/bin/cargo", R"SH(
case "$1" in
--version) echo "cargo 1.99.0-fake"; exit 0 ;;
build)
    cat "$CARGO_HOME/registry/cache/index.crates.io/dep-1.0.0.crate" || exit 1
    mkdir -p target/debug && echo BUILT > target/debug/app || exit 1
    echo FETCHED > "$CARGO_HOME/registry/cache/index.crates.io/new-1.0.0.crate" || exit 1
    exit 0 ;;
esac
exit 2
)SH");
    write_file(w.home + "/.cargo/registry/cache/index.crates.io/dep-1.0.0.crate", "CACHED-CRATE");
    write_file(w.home + "/.cargo/credentials.toml", std::string("[registry]\ntoken = \"") + kCargoToken + "\"\n");
}

}  // namespace

TEST_CASE("rustup's cargo proxy finds the default toolchain inside; Cargo writes only where allowed",
          "[landlock][toolchains]") {
    require_landlock();
    World w;
    plant_rustup(w);
    // rustup puts ~/.cargo/bin first on PATH: its proxy answers `cargo`, not
    // a system one (CI installs Debian's /usr/bin/cargo for test_debian_cargo).
    const ToolchainRun build{w.home + "/.cargo/bin:/usr/bin:/bin", {}, R"SH(
        echo "RUSTUP_HOME=$RUSTUP_HOME CARGO_HOME=$CARGO_HOME"
        cargo --version || exit 11
        cargo build --offline || exit 12
        cat "$CARGO_HOME/credentials.toml"
        echo EVIL > "$RUSTUP_HOME/settings.toml"
        echo EVIL > "$CARGO_HOME/bin/cargo"
        exit 0)SH"};
    ProcessResult run = run_toolchain_command(w, build);
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("RUSTUP_HOME=" + w.home + "/.rustup CARGO_HOME=" + w.home + "/.cargo") != std::string::npos);
    CHECK(run.out.find("cargo 1.99.0-fake") != std::string::npos);
    CHECK(run.out.find("CACHED-CRATE") != std::string::npos);
    CHECK(run.out.find(kCargoToken) == std::string::npos);  // the registry token stays unreadable
    CHECK(read_file(w.work + "/target/debug/app") == "BUILT\n");
    CHECK(read_file(w.home + "/.cargo/registry/cache/index.crates.io/new-1.0.0.crate") == "FETCHED\n");
    CHECK(read_file(w.home + "/.rustup/settings.toml").find("EVIL") == std::string::npos);  // toolchains read-only
    CHECK(read_file(w.home + "/.cargo/bin/cargo").find("EVIL") == std::string::npos);

    // The user's own RUSTUP_HOME is kept as it is.
    fs::rename(w.home + "/.rustup", w.home + "/.cargo/rustup-elsewhere");
    ToolchainRun own = build;
    own.env["RUSTUP_HOME"] = w.home + "/.cargo/rustup-elsewhere";
    own.script = "echo \"RUSTUP_HOME=$RUSTUP_HOME\"; cargo --version";
    ProcessResult kept = run_toolchain_command(w, own);
    INFO(kept.out << kept.err);
    CHECK(kept.exit_code == 0);
    CHECK(kept.out.find("RUSTUP_HOME=" + w.home + "/.cargo/rustup-elsewhere\n") != std::string::npos);
    CHECK(kept.out.find("cargo 1.99.0-fake") != std::string::npos);

    // Negative: without a rustup folder to find, the proxy fails as it did inside before.
    fs::rename(w.home + "/.cargo/rustup-elsewhere", w.root / "rustup-away");
    ProcessResult missing = run_toolchain_command(w, {build.path, {}, "cargo --version"});
    INFO(missing.out << missing.err);
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.find("rustup could not choose a version of cargo to run") != std::string::npos);
}

TEST_CASE("the private HOME's .gitconfig carries the user's identity and nothing else",
          "[landlock][toolchains][gitconfig]") {
    require_landlock();
    World w;
    write_file(w.home + "/.gitconfig", R"CFG([user]
	name = Ada Tester
	email = ada@example.org
[init]
	defaultBranch = trunk
[credential]
	helper = store --file /tmp/GIT-CREDENTIAL-HELPER
[url "https://ghp_GITTOKEN42@github.com/"]
	insteadOf = https://github.com/
[core]
	hooksPath = /tmp/HOOKS-PATH
[include]
	path = ~/.gitconfig.extra
)CFG");
    write_file(w.home + "/.gitconfig.extra", "[user]\nname = FROM-INCLUDE\n");
    ProcessResult run = run_toolchain_command(w, {"/usr/bin:/bin", {}, R"SH(
        cat "$HOME/.gitconfig"
        git init -q scratch && cd scratch && echo a > a && git add a && git commit -q -m one || exit 13
        git log --format='AUTHOR=%an <%ae>'; git symbolic-ref HEAD
        exit 0)SH"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("AUTHOR=Ada Tester <ada@example.org>") != std::string::npos);
    CHECK(run.out.find("refs/heads/trunk") != std::string::npos);
    CHECK(run.out.find("directory = \"" + w.work + "\"") != std::string::npos);
    for (const char* absent : {"GIT-CREDENTIAL-HELPER", "helper", "ghp_GITTOKEN42", "insteadOf", "HOOKS-PATH",
                               "FROM-INCLUDE", "include"})
        CHECK(run.out.find(absent) == std::string::npos);
}

TEST_CASE("USER and LOGNAME inside are the uid's name, never the caller's; user_names = false leaves them unset",
          "[landlock][toolchains][user-names]") {
    require_landlock();
    World w;
    const passwd* entry = getpwuid(getuid());
    REQUIRE(entry);  // root and omstest both have one
    const std::string name = entry->pw_name;
    const std::string names = "echo \"USER=[$USER] LOGNAME=[$LOGNAME] WHOAMI=[$(whoami)] ID=[$(id -un)]\"";
    const std::map<std::string, std::string> forged{{"USER", "evil"}, {"LOGNAME", "evil"}};
    const std::string user_config = w.root / "xdg-config/oms/config.toml";
    const std::string world_config = read_file(user_config);

    // Default: the uid's name, as whoami and id -un say, whatever the caller set.
    ProcessResult run = run_toolchain_command(w, {"/usr/bin:/bin", forged, names});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("USER=[" + name + "] LOGNAME=[" + name + "] WHOAMI=[" + name + "] ID=[" + name + "]") !=
          std::string::npos);
    CHECK(run.out.find("evil") == std::string::npos);

    // Passing them by name in extra still gives the uid's name, not the caller's.
    add_user_config(w, "[plugin.env-allowlist]\nextra = [\"USER\", \"LOGNAME\"]\n");
    ProcessResult extra = run_toolchain_command(w, {"/usr/bin:/bin", forged, names});
    INFO(extra.out << extra.err);
    CHECK(extra.exit_code == 0);
    CHECK(extra.out.find("USER=[" + name + "] LOGNAME=[" + name + "]") != std::string::npos);
    CHECK(extra.out.find("evil") == std::string::npos);

    // The key off: both absent, while the password database still answers.
    write_file(user_config, world_config + "[plugin.env-allowlist]\nuser_names = false\n");
    const std::string count_set = "; env | grep -c -e '^USER=' -e '^LOGNAME='";
    ProcessResult off = run_toolchain_command(w, {"/usr/bin:/bin", forged, names + count_set});
    INFO(off.out << off.err);
    CHECK(off.out.find("USER=[] LOGNAME=[] WHOAMI=[" + name + "] ID=[" + name + "]") != std::string::npos);
    CHECK(off.out.find("\n0\n") != std::string::npos);  // not even set empty

    // A worktree may not set it (it is the user's choice), and a misspelt key
    // is an error naming file, line and key: nothing runs either way.
    write_file(w.work + "/.oms/config.toml", "[plugin.env-allowlist]\nuser_names = true\n");
    ProcessResult from_worktree = run_toolchain_command(w, {"/usr/bin:/bin", {}, "touch \"$PWD/ran-worktree\""});
    INFO(from_worktree.out << from_worktree.err);
    CHECK(from_worktree.exit_code != 0);
    CHECK(from_worktree.err.find("user_names") != std::string::npos);
    CHECK_FALSE(fs::exists(w.work + "/ran-worktree"));
    fs::remove(w.work + "/.oms/config.toml");
    write_file(user_config, world_config + "[plugin.env-allowlist]\nuser_name = false\n");
    ProcessResult misspelt = run_toolchain_command(w, {"/usr/bin:/bin", {}, "touch \"$PWD/ran-misspelt\""});
    INFO(misspelt.out << misspelt.err);
    CHECK(misspelt.exit_code != 0);
    CHECK(misspelt.err.find("config.toml:4: key 'plugin.env-allowlist.user_name': unknown key") != std::string::npos);
    CHECK_FALSE(fs::exists(w.work + "/ran-misspelt"));
}

TEST_CASE("version managers that look in HOME (volta, avm, nvm, bun, solana, fnm, pyenv) find the real folders, read-only",
          "[landlock][toolchains]") {
    require_landlock();
    World w;
    // volta's shim finds its home as ${VOLTA_HOME:-$HOME/.volta}; VOLTA_HOME is not on the allowlist.
    write_script(w.home + "/.volta/bin/node", "exec \"${VOLTA_HOME:-$HOME/.volta}/tools/image/node/20.1.0/bin/node\" \"$@\"\n");
    write_script(w.home + "/.volta/tools/image/node/20.1.0/bin/node", "echo VOLTA-NODE-20\n");
    // avm's anchor proxy reads $HOME/.avm/.version.
    write_script(w.home + "/.cargo/bin/anchor", "v=$(cat \"$HOME/.avm/.version\") || exit 1\nexec \"$HOME/.avm/bin/anchor-$v\" \"$@\"\n");
    write_file(w.home + "/.avm/.version", "0.30.1");
    write_script(w.home + "/.avm/bin/anchor-0.30.1", "echo ANCHOR-0.30.1\n");
    // nvm is sourced from ${NVM_DIR:-$HOME/.nvm}/nvm.sh; bun and solana run from PATH.
    write_file(w.home + "/.nvm/nvm.sh", "NVM_LOADED=yes\n");
    write_script(w.home + "/.bun/bin/bun", "echo BUN-1.1\n");
    write_script(w.home + "/.local/share/solana/install/active_release/bin/solana", "echo SOLANA-CLI\n");
    // fnm (Linux): PATH names its default alias, a link into node-versions.
    write_script(w.home + "/.local/share/fnm/node-versions/v20.2.0/installation/bin/npx", "echo FNM-NPX-20\n");
    fs::create_directories(w.home + "/.local/share/fnm/aliases");
    fs::create_symlink("../node-versions/v20.2.0/installation", w.home + "/.local/share/fnm/aliases/default");
    // pyenv's shim on PATH runs pyenv itself from ${PYENV_ROOT:-$HOME/.pyenv}/libexec.
    write_script(w.home + "/.pyenv/shims/python", "exec \"${PYENV_ROOT:-$HOME/.pyenv}/libexec/pyenv\" exec python \"$@\"\n");
    write_script(w.home + "/.pyenv/libexec/pyenv", "echo PYENV-PYTHON-3.12\n");
    const std::string path = w.home + "/.pyenv/shims:" + w.home + "/.volta/bin:" + w.home + "/.cargo/bin:" + w.home + "/.bun/bin:" + w.home +
                             "/.local/share/solana/install/active_release/bin:" + w.home +
                             "/.local/share/fnm/aliases/default/bin:/usr/bin:/bin";
    ProcessResult run = run_toolchain_command(w, {path, {}, R"SH(
        node; anchor; bun; solana; npx; python
        echo "FNM-VERSIONS=$(ls "$HOME/.local/share/fnm/node-versions")"
        echo EVIL > "$HOME/.local/share/fnm/aliases/default/bin/npx"
        . "${NVM_DIR:-$HOME/.nvm}/nvm.sh" && echo "NVM=$NVM_LOADED"
        echo EVIL > "$HOME/.volta/tools/image/node/20.1.0/bin/node"
        echo EVIL > "$HOME/.avm/.version"
        mkdir "$HOME/.bun/new-folder"
        echo CONTROL > "$HOME/own-file" && cat "$HOME/own-file"
        exit 0)SH"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    for (const char* expected : {"VOLTA-NODE-20", "ANCHOR-0.30.1", "BUN-1.1", "SOLANA-CLI", "NVM=yes", "CONTROL", "FNM-NPX-20",
                                 "FNM-VERSIONS=v20.2.0", "PYENV-PYTHON-3.12"})
        CHECK(run.out.find(expected) != std::string::npos);
    // The links lead to read-only toolchain roots: the host files are unchanged.
    CHECK(read_file(w.home + "/.volta/tools/image/node/20.1.0/bin/node").find("EVIL") == std::string::npos);
    CHECK(read_file(w.home + "/.avm/.version") == "0.30.1");
    CHECK_FALSE(fs::exists(w.home + "/.bun/new-folder"));
    CHECK(read_file(w.home + "/.local/share/fnm/node-versions/v20.2.0/installation/bin/npx") == "#!/bin/sh\necho FNM-NPX-20\n");
    CHECK_FALSE(fs::exists(w.home + "/own-file"));  // the private HOME is not the real one
}
