// The private HOME's files in a container: what the backend takes from the
// run's private HOME on the host, how they travel (an environment value the
// runner takes out, never an argument), and how the runner writes them into
// HOME (over whatever an earlier warm command left, never through a link).
#include "container_plan.hpp"
#include "private_home_files.hpp"

#include "../runner/home_seed.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

using namespace oms::docker;
using namespace oms::test;
using Entries = std::vector<home_seed::Entry>;

namespace {

std::string link_target(const std::string& path) {
    char buffer[4096];
    ssize_t n = readlink(path.c_str(), buffer, sizeof buffer);
    return n < 0 ? "" : std::string(buffer, static_cast<size_t>(n));
}

// A run's private HOME as the core leaves it: two files, two toolchain links.
struct PrivateHome {
    TempDir root{"oms-docker-home"};
    RunInputs in;
    PrivateHome() {
        in.worktree = root / "wt";
        in.private_home = root / "run/home";
        in.state_dir = root / "state";
        make_dirs(in.worktree);
        make_dirs(root / "real/.cargo");
        make_dirs(root / "real/.local/share/solana");
        write_file(in.private_home + "/.gitconfig", "[user]\n\tname = \"A\"\n");
        write_file(in.private_home + "/.npmrc", "fetch-retries=0\n");
        make_dirs(in.private_home + "/.local/share");
        REQUIRE(symlink((root / "real/.cargo").c_str(), (in.private_home + "/.cargo").c_str()) == 0);
        REQUIRE(symlink((root / "real/.local/share/solana").c_str(), (in.private_home + "/.local/share/solana").c_str()) == 0);
        in.env = {"PATH=/bin", "HOME=" + in.private_home};
        in.argv = {"true"};
    }
};

std::vector<std::string> names(const Entries& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back((e.link ? "link " : "file ") + e.name);
    return out;
}

}  // namespace

TEST_CASE("home files: files are carried, a toolchain link only when the container shows its target") {
    PrivateHome h;
    CHECK(names(private_home_files(h.in).entries) == std::vector<std::string>{"file .gitconfig", "file .npmrc"});
    h.in.read_only = {h.root / "real/.cargo"};
    PrivateHomeFiles files = private_home_files(h.in);
    CHECK(names(files.entries) == std::vector<std::string>{"link .cargo", "file .gitconfig", "file .npmrc"});
    CHECK(files.entries[0].data == h.root / "real/.cargo");
    CHECK(files.entries[1].data == "[user]\n\tname = \"A\"\n");
    h.in.read_only = {h.root / "real"};
    CHECK(names(private_home_files(h.in).entries) ==
          std::vector<std::string>{"link .cargo", "file .gitconfig", "link .local/share/solana", "file .npmrc"});
}

TEST_CASE("home files: a file over 32 KiB is left out with a note") {
    PrivateHome h;
    write_file(h.in.private_home + "/big", std::string(40 * 1024, 'x'));
    PrivateHomeFiles files = private_home_files(h.in);
    CHECK(names(files.entries) == std::vector<std::string>{"file .gitconfig", "file .npmrc"});
    REQUIRE(files.notes.size() == 1);
    CHECK_THAT(files.notes[0], Catch::Contains("HOME/big is not copied"));
}

TEST_CASE("home files: they travel in the command's environment, never in an argument") {
    PrivateHome h;
    h.in.env.push_back(std::string(home_seed::kVariable) + "=from-the-parent");  // never passed on
    Settings settings;
    ContainerPlan plan = plan_container(settings, "sha256:" + std::string(64, 'b'), "1000:1000", h.in, Mode::OneShot,
                                        "/var/run/docker.sock");
    const std::string prefix = std::string(home_seed::kVariable) + "=";
    auto carried = std::find_if(plan.env.begin(), plan.env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    REQUIRE(carried != plan.env.end());
    CHECK(std::count_if(plan.env.begin(), plan.env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }) == 1);
    Entries decoded;
    REQUIRE(home_seed::decode(carried->substr(prefix.size()), decoded));
    CHECK(names(decoded) == std::vector<std::string>{"file .gitconfig", "file .npmrc"});
    for (const std::string& a : one_shot_argv(settings, plan, "n", h.in.argv, false, "/r")) {
        CAPTURE(a);
        CHECK(a.find(carried->substr(prefix.size())) == std::string::npos);
    }
    // An empty private HOME adds no variable.
    h.in.private_home = h.root / "empty";
    make_dirs(h.in.private_home);
    plan = plan_container(settings, "sha256:" + std::string(64, 'b'), "1000:1000", h.in, Mode::Warm, "/var/run/docker.sock");
    CHECK(std::none_of(plan.env.begin(), plan.env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }));
}

// A policy that denies HOME leaves the command without one: the runner has
// nowhere to put the files, and would refuse every command if they came.
TEST_CASE("home files: no variable when the policy gives the command no HOME") {
    PrivateHome h;
    h.in.env = {"PATH=/bin"};
    Settings settings;
    const std::string prefix = std::string(home_seed::kVariable) + "=";
    for (Mode mode : {Mode::OneShot, Mode::Warm}) {
        ContainerPlan plan = plan_container(settings, "sha256:" + std::string(64, 'b'), "1000:1000", h.in, mode,
                                            "/var/run/docker.sock");
        CHECK(std::none_of(plan.env.begin(), plan.env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }));
    }
}

TEST_CASE("home seed: encode and decode agree; anything else is refused") {
    const Entries entries{{false, ".gitconfig", std::string("a\0b=\n;:", 7)}, {true, ".local/share/solana", "/h/s"}};
    Entries back;
    REQUIRE(home_seed::decode(home_seed::encode(entries), back));
    REQUIRE(back.size() == 2);
    CHECK(back[0].data == entries[0].data);
    CHECK(back[1].link);
    CHECK(back[1].name == ".local/share/solana");
    for (const std::string bad : {"x2e:;", "f2e:6;", "f2e;", "f2g:61;", "f2e:61"}) {
        CAPTURE(bad);
        CHECK_FALSE(home_seed::decode(bad, back));
    }
}

TEST_CASE("home seed: the runner replaces what an earlier command left and never writes through a link") {
    TempDir root("oms-docker-seed");
    const std::string home = root / "home", outside = root / "outside";
    make_dirs(home);
    make_dirs(outside);
    // An earlier warm command's leftovers: an edited .gitconfig, .npmrc made
    // a link to a file outside, .local a link to a folder outside.
    write_file(home + "/.gitconfig", "[credential]\n\thelper = evil\n");
    write_file(outside + "/victim", "victim\n");
    REQUIRE(symlink((outside + "/victim").c_str(), (home + "/.npmrc").c_str()) == 0);
    REQUIRE(symlink(outside.c_str(), (home + "/.local").c_str()) == 0);
    write_file(home + "/kept", "kept\n");
    const Entries entries{{false, ".gitconfig", "[user]\n"}, {false, ".npmrc", "fetch-retries=0\n"},
                          {true, ".local/share/solana", "/s"}, {true, ".cargo", "/c"}, {false, "../escape", "x"}};
    TempDir errors("oms-docker-seed-err");
    const std::string error_file = errors / "stderr";
    write_file(error_file, "");
    int err = open(error_file.c_str(), O_WRONLY | O_APPEND);
    CHECK_FALSE(home_seed::write_into(home, entries, err));  // ../escape: the caller does not start the command
    close(err);
    CHECK(read_file(home + "/.gitconfig") == "[user]\n");
    CHECK(read_file(home + "/.npmrc") == "fetch-retries=0\n");
    CHECK(read_file(outside + "/victim") == "victim\n");  // the link was replaced, not written through
    CHECK(link_target(home + "/.cargo") == "/c");
    CHECK(read_file(home + "/kept") == "kept\n");          // the rest of a shared HOME stays as it is
    CHECK_FALSE(exists(outside + "/share"));               // nothing made through the .local link
    CHECK(link_target(home + "/.local/share/solana") == "/s");  // the link at .local was replaced by a folder
    CHECK_FALSE(exists(root / "escape"));
    struct stat st;
    REQUIRE(stat((home + "/.gitconfig").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    const std::string said = read_file(error_file);
    CHECK(said.find(".local/share/solana") == std::string::npos);
    CHECK_THAT(said, Catch::Contains("oms: cannot put ../escape into HOME"));
    // Positive control: with .local a real folder, the link is made below it.
    CHECK(home_seed::write_into(home, {{true, ".local/share/solana", "/t"}}, 2));
    CHECK(link_target(home + "/.local/share/solana") == "/t");
}

// What an earlier warm command can do to HOME so that the next seed fails:
// take the owner's rights away, put a folder where a file goes, a file where
// a folder goes. Each is undone and the entries land (before, the seed said
// "cannot put" and the command ran with what the earlier one left).
TEST_CASE("home seed: a HOME prepared to make the seed fail still gets the entries") {
    TempDir root("oms-docker-seed-prepared");
    const std::string home = root / "home";
    make_dirs(home + "/.npmrc/inside");            // a folder where a file goes
    write_file(home + "/.npmrc/inside/x", "x\n");
    write_file(home + "/.local", "a file where a folder goes\n");
    make_dirs(home + "/.cargo/bin");               // a folder where a link goes, with a forged tool
    write_file(home + "/.cargo/bin/tool", "forged\n");
    write_file(home + "/.gitconfig", "[core]\n\tpager = planted\n");
    // Folders at the names the runner used for its new file and for a folder
    // it moves aside (they held its pid, here the test's).
    make_dirs(home + "/.oms-new-" + std::to_string(getpid()) + "-.gitconfig/x");
    make_dirs(home + "/.oms-moved-aside-" + std::to_string(getpid()) + "-.npmrc/x");
    REQUIRE(chmod(home.c_str(), 0500) == 0);       // and HOME made unwritable
    const Entries entries{{false, ".gitconfig", "[user]\n"}, {false, ".npmrc", "fetch-retries=0\n"},
                          {true, ".local/share/solana", "/s"}, {true, ".cargo", "/c"}};
    CHECK(home_seed::write_into(home, entries, 2));
    CHECK(read_file(home + "/.gitconfig") == "[user]\n");
    CHECK(read_file(home + "/.npmrc") == "fetch-retries=0\n");
    CHECK(link_target(home + "/.cargo") == "/c");
    CHECK(link_target(home + "/.local/share/solana") == "/s");
    struct stat st;
    REQUIRE(stat(home.c_str(), &st) == 0);
    CHECK((st.st_mode & 0700) == 0700);
    // Positive control: an entry that cannot be put (a name out of HOME) still fails.
    CHECK_FALSE(home_seed::write_into(home, {{false, "a/../../b", "x"}}, 2));
}

TEST_CASE("home files: CARGO_HOME and RUSTUP_HOME below the real HOME reach the container only when it shows them") {
    PrivateHome h;
    h.in.home = h.root / "real";
    h.in.env.push_back("CARGO_HOME=" + h.root / "real/.cargo");
    h.in.env.push_back("RUSTUP_HOME=" + h.root / "real/.rustup");
    h.in.env.push_back("CARGO_TARGET_DIR=" + h.root / "real/.cargo/target");  // not a toolchain home: kept
    Settings settings;
    auto env_of = [&] {
        return plan_container(settings, "sha256:" + std::string(64, 'b'), "1000:1000", h.in, Mode::Warm,
                              "/var/run/docker.sock").env;
    };
    auto has = [](const std::vector<std::string>& env, const std::string& entry) {
        return std::count(env.begin(), env.end(), entry) == 1;
    };
    std::vector<std::string> env = env_of();
    CHECK_FALSE(has(env, "CARGO_HOME=" + h.root / "real/.cargo"));
    CHECK_FALSE(has(env, "RUSTUP_HOME=" + h.root / "real/.rustup"));
    CHECK(has(env, "CARGO_TARGET_DIR=" + h.root / "real/.cargo/target"));
    h.in.read_only = {h.root / "real/.cargo"};  // mounted: it names the same folder inside
    env = env_of();
    CHECK(has(env, "CARGO_HOME=" + h.root / "real/.cargo"));
    CHECK_FALSE(has(env, "RUSTUP_HOME=" + h.root / "real/.rustup"));
    h.in.env.push_back("RUSTUP_HOME=/usr/local/rustup");  // outside HOME: the user's own, kept
    CHECK(has(env_of(), "RUSTUP_HOME=/usr/local/rustup"));
}
