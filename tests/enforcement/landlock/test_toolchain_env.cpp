// Real toolchains and git inside the sandbox (issue 10, items 1 and 2),
// through the real `oms run --sandbox landlock`: a HOME laid out like a
// rustup install whose `cargo` proxy fails unless it finds RUSTUP_HOME's
// default toolchain, and the private HOME's .gitconfig. Each next to its
// negative (the proxy without RUSTUP_HOME fails; the credential helper and
// the token URL never reach the command).
#include "test_support.hpp"

#include "process.hpp"

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

struct Run {
    std::string path = "/usr/bin:/bin";
    std::map<std::string, std::string> env;
    std::string script;
};

ProcessResult run_oms(World& w, const Run& run) {
    std::map<std::string, std::string> env{{"HOME", w.home},
                                           {"XDG_CONFIG_HOME", w.root / "xdg-config"},
                                           {"XDG_STATE_HOME", w.root / "xdg-state"},
                                           {"PATH", run.path}};
    for (const auto& [name, value] : run.env) env[name] = value;
    std::vector<std::string> environment;
    for (const std::string& entry : environment_with(env))
        if (entry.rfind("RUSTUP_HOME=", 0) != 0 && entry.rfind("CARGO_HOME=", 0) != 0 &&
            entry.rfind("GIT_CONFIG_GLOBAL=", 0) != 0)
            environment.push_back(entry);
    for (const auto& [name, value] : run.env) environment.push_back(name + "=" + value);
    return run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work, "--", "/bin/sh", "-c",
                        expand(w, run.script)},
                       {environment, std::nullopt, w.work, 60});
}

void add_user_config(const World& w, const std::string& toml) {
    const std::string file = w.root / "xdg-config/oms/config.toml";
    write_file(file, read_file(file) + toml);
}

}  // namespace

TEST_CASE("rustup's cargo proxy finds the default toolchain inside; Cargo writes only where allowed",
          "[landlock][toolchains]") {
    require_landlock();
    World w;
    plant_rustup(w);
    // ~/.cargo/bin first, as rustup's installer puts it: a distribution's
    // cargo in /usr/bin would otherwise answer instead of the proxy.
    const Run build{w.home + "/.cargo/bin:/usr/bin:/bin", {}, R"SH(
        echo "RUSTUP_HOME=$RUSTUP_HOME CARGO_HOME=$CARGO_HOME"
        cargo --version || exit 11
        cargo build --offline || exit 12
        cat "$CARGO_HOME/credentials.toml"
        echo EVIL > "$RUSTUP_HOME/settings.toml"
        echo EVIL > "$CARGO_HOME/bin/cargo"
        exit 0)SH"};
    ProcessResult run = run_oms(w, build);
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
    Run own = build;
    own.env["RUSTUP_HOME"] = w.home + "/.cargo/rustup-elsewhere";
    own.script = "echo \"RUSTUP_HOME=$RUSTUP_HOME\"; cargo --version";
    ProcessResult kept = run_oms(w, own);
    INFO(kept.out << kept.err);
    CHECK(kept.exit_code == 0);
    CHECK(kept.out.find("RUSTUP_HOME=" + w.home + "/.cargo/rustup-elsewhere\n") != std::string::npos);
    CHECK(kept.out.find("cargo 1.99.0-fake") != std::string::npos);

    // Negative: without a rustup folder to find, the proxy fails as it did inside before.
    fs::rename(w.home + "/.cargo/rustup-elsewhere", w.root / "rustup-away");
    ProcessResult missing = run_oms(w, {build.path, {}, "cargo --version"});
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
    ProcessResult run = run_oms(w, {"/usr/bin:/bin", {{"USER", "caller-name"}}, R"SH(
        cat "$HOME/.gitconfig"
        echo "USER=[$USER] LOGNAME=[$LOGNAME] ID=[$(id -un)]"
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
    // USER and LOGNAME are not on the spec's allowlist: unset by default...
    CHECK(run.out.find("USER=[] LOGNAME=[]") != std::string::npos);
    CHECK(run.out.find("ID=[]") == std::string::npos);  // ...while the uid's name is still found

    // ...and passed when the user's config adds them.
    add_user_config(w, "[plugin.env-allowlist]\nextra = [\"USER\", \"LOGNAME\"]\n");
    ProcessResult opted = run_oms(w, {"/usr/bin:/bin", {{"USER", "caller-name"}, {"LOGNAME", "caller-name"}},
                                      "echo \"USER=[$USER] LOGNAME=[$LOGNAME]\""});
    INFO(opted.out << opted.err);
    CHECK(opted.out.find("USER=[caller-name] LOGNAME=[caller-name]") != std::string::npos);
}

TEST_CASE("version managers that look in HOME (volta, avm, nvm, bun, solana) find the real folders, read-only",
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
    const std::string path = w.home + "/.volta/bin:" + w.home + "/.cargo/bin:" + w.home + "/.bun/bin:" + w.home +
                             "/.local/share/solana/install/active_release/bin:/usr/bin:/bin";
    ProcessResult run = run_oms(w, {path, {}, R"SH(
        node; anchor; bun; solana
        . "${NVM_DIR:-$HOME/.nvm}/nvm.sh" && echo "NVM=$NVM_LOADED"
        echo EVIL > "$HOME/.volta/tools/image/node/20.1.0/bin/node"
        echo EVIL > "$HOME/.avm/.version"
        mkdir "$HOME/.bun/new-folder"
        echo CONTROL > "$HOME/own-file" && cat "$HOME/own-file"
        exit 0)SH"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    for (const char* expected : {"VOLTA-NODE-20", "ANCHOR-0.30.1", "BUN-1.1", "SOLANA-CLI", "NVM=yes", "CONTROL"})
        CHECK(run.out.find(expected) != std::string::npos);
    // The links lead to read-only toolchain roots: the host files are unchanged.
    CHECK(read_file(w.home + "/.volta/tools/image/node/20.1.0/bin/node").find("EVIL") == std::string::npos);
    CHECK(read_file(w.home + "/.avm/.version") == "0.30.1");
    CHECK_FALSE(fs::exists(w.home + "/.bun/new-folder"));
    CHECK_FALSE(fs::exists(w.home + "/own-file"));  // the private HOME is not the real one
}
