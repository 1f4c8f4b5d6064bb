// Debian's own cargo (package `cargo`: cargo 0.66, rustc 1.63) through the
// real `oms run --sandbox landlock`, as the running user: `cargo --version`
// and an offline build of a crate whose one dependency is vendored the way
// offline users do it (a directory source replacing crates.io, with its
// .cargo-checksum.json), then the produced binary runs inside and on the host.
// In the same runs, the crate's build script does what a hostile dependency
// would: it reads the registry token and writes outside the worktree. Host-side
// checks: the token never comes out, target/ is written in the worktree, and
// nothing in HOME or outside the worktree changes.
#include "test_support.hpp"
#include "toolchain_runs.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <map>

using namespace oms::test;
namespace fs = std::filesystem;

namespace {

const char* const kDebianCargo = "/usr/bin/cargo";
const char* const kCargoToken = "CARGO-REGISTRY-TOKEN-51c7";
const char* const kGreeting = "HELLO-FROM-VENDORED-DEP";

std::string sha256_of(const std::string& file) {
    ProcessResult sum = run_process({"/usr/bin/sha256sum", file});
    REQUIRE(sum.exit_code == 0);
    return sum.out.substr(0, 64);
}

// vendor/greeting: a crates.io package as `cargo vendor` lays it out. The
// checksum file lists each file's SHA-256 (cargo refuses the source when one
// differs); "package" is the .crate's checksum, null for a hand-made one.
void plant_vendored_dependency(const std::string& work) {
    const std::string crate = work + "/vendor/greeting";
    write_file(crate + "/Cargo.toml", "[package]\nname = \"greeting\"\nversion = \"1.0.0\"\nedition = \"2021\"\n");
    write_file(crate + "/src/lib.rs", std::string("pub fn hello() -> &'static str { \"") + kGreeting + "\" }\n");
    write_file(crate + "/.cargo-checksum.json", "{\"files\":{\"Cargo.toml\":\"" + sha256_of(crate + "/Cargo.toml") +
                                                    "\",\"src/lib.rs\":\"" + sha256_of(crate + "/src/lib.rs") +
                                                    "\"},\"package\":null}");
    write_file(work + "/.cargo/config.toml",
               "[source.crates-io]\nreplace-with = \"vendored-sources\"\n\n"
               "[source.vendored-sources]\ndirectory = \"vendor\"\n");
}

// The build script runs as the user building, with the user's rights: it
// tries to read the registry token and to write into HOME and outside the
// worktree, ignoring failures, and leaves a mark in the worktree (allowed)
// so the test knows it ran.
std::string hostile_build_script(const World& w) {
    return R"RS(use std::fs;
fn main() {
    let token = fs::read_to_string(")RS" + w.home + R"RS(/.cargo/credentials.toml").unwrap_or_default();
    let _ = fs::write(")RS" + w.work + R"RS(/stolen-by-build-script", token);
    let _ = fs::write(")RS" + w.outside + R"RS(/file", "EVIL-FROM-BUILD-SCRIPT");
    let _ = fs::write(")RS" + w.home + R"RS(/.cargo/config.toml", "EVIL-FROM-BUILD-SCRIPT");
    let _ = fs::write(")RS" + w.home + R"RS(/.bashrc", "EVIL-FROM-BUILD-SCRIPT");
    fs::write(")RS" + w.work + R"RS(/build-script-ran", "RAN").unwrap();
}
)RS";
}

void plant_crate(const World& w) {
    write_file(w.work + "/Cargo.toml",
               "[package]\nname = \"oms-cargo-probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\nbuild = \"build.rs\"\n\n"
               "[dependencies]\ngreeting = \"1.0\"\n");
    write_file(w.work + "/src/main.rs", "fn main() { println!(\"{}\", greeting::hello()); }\n");
    write_file(w.work + "/build.rs", hostile_build_script(w));
    plant_vendored_dependency(w.work);
}

// Every entry below `root` with what identifies its state: the kind, the
// mode, a file's content, a link's target.
std::map<std::string, std::string> snapshot(const std::string& root) {
    std::map<std::string, std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        const std::string path = entry.path().string();
        struct stat info {};
        if (::lstat(path.c_str(), &info) != 0) continue;
        std::string state = std::to_string(info.st_mode) + " ";
        if (S_ISREG(info.st_mode)) state += read_file(path);
        if (S_ISLNK(info.st_mode)) state += fs::read_symlink(path).string();
        out[path] = state;
    }
    return out;
}

std::vector<std::string> changes(const std::map<std::string, std::string>& before,
                                 const std::map<std::string, std::string>& after) {
    std::vector<std::string> out;
    for (const auto& [path, state] : after) {
        auto it = before.find(path);
        if (it == before.end()) out.push_back("new: " + path);
        else if (it->second != state) out.push_back("changed: " + path);
    }
    for (const auto& [path, state] : before)
        if (!after.count(path)) out.push_back("removed: " + path);
    return out;
}

}  // namespace

TEST_CASE("Debian's cargo builds a crate with a vendored dependency offline inside; the registry token and "
          "everything outside the worktree stay out of reach",
          "[landlock][toolchains][cargo]") {
    require_landlock();
    if (!fs::exists(kDebianCargo))
        FAIL(kDebianCargo << " is missing: this test needs Debian's cargo package (tests/install-deps.sh installs it)");
    World w;
    plant_crate(w);
    write_file(w.home + "/.cargo/credentials.toml", std::string("[registry]\ntoken = \"") + kCargoToken + "\"\n");
    const auto home_before = snapshot(w.home);
    const auto outside_before = snapshot(w.outside);

    ProcessResult run = run_toolchain_command(w, {"/usr/bin:/bin", {}, R"SH(
        echo "CARGO=$(command -v cargo) CARGO_HOME=$CARGO_HOME"
        cargo --version || exit 11
        cargo build --offline || exit 12
        ./target/debug/oms-cargo-probe || exit 13
        cat "$CARGO_HOME/credentials.toml" {home}/.cargo/credentials.toml
        exit 0)SH",
                                                  240});
    INFO(run.out << run.err);
    // Positive controls: Debian's cargo, the default CARGO_HOME, the build and its binary.
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("CARGO=" + std::string(kDebianCargo) + " CARGO_HOME=" + w.home + "/.cargo\n") !=
          std::string::npos);
    CHECK(run.out.find("\ncargo 1.") != std::string::npos);
    CHECK(run.out.find(std::string(kGreeting) + "\n") != std::string::npos);
    CHECK(read_file(w.work + "/build-script-ran") == "RAN");
    // target/ was written in the worktree, and what it holds runs on the host too.
    ProcessResult host_run = run_process({w.work + "/target/debug/oms-cargo-probe"});
    CHECK(host_run.exit_code == 0);
    CHECK(host_run.out == std::string(kGreeting) + "\n");

    // Negatives: the token reached neither the command nor the build script...
    CHECK(run.out.find(kCargoToken) == std::string::npos);
    CHECK(run.err.find(kCargoToken) == std::string::npos);
    CHECK(read_file(w.work + "/stolen-by-build-script").empty());
    // ...and nothing in HOME or outside the worktree changed (the build
    // script's writes there failed; Cargo wrote nothing into its home either).
    const std::vector<std::string> home_changes = changes(home_before, snapshot(w.home));
    const std::vector<std::string> outside_changes = changes(outside_before, snapshot(w.outside));
    INFO("HOME: " << ::Catch::Detail::stringify(home_changes));
    INFO("outside: " << ::Catch::Detail::stringify(outside_changes));
    CHECK(home_changes.empty());
    CHECK(outside_changes.empty());
    CHECK(read_file(w.outside + "/file") == "OUTSIDE-ORIGINAL");
}
