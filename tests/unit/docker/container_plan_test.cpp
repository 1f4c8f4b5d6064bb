// The exact docker argument vectors (and exec request bodies) the backend
// produces for a table of policies.
#include "cli_env.hpp"
#include "container_plan.hpp"
#include "exec_request.hpp"
#include "mount_option.hpp"
#include "one_shot_lifeline.hpp"
#include "../runner/runner_request.hpp"
#include "runner_run.hpp"
#include "host_relay.hpp"
#include "surfnet_plan.hpp"
#include "warm_identity.hpp"

#include "temp_dir.hpp"

#include <oms/secret_search.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/stat.h>
#include <unistd.h>

using namespace oms::docker;
using oms::sdk::SecretFindings;

namespace {

// The SDK's search as the docker backend asks it, for suffixes alone.
SecretFindings find_suffix_matches(const std::vector<std::string>& roots, const std::vector<std::string>& suffixes,
                                   const std::vector<std::string>& skip, size_t entry_limit = 500000) {
    return oms::sdk::find_secrets(oms::sdk::SecretSearch{"docker", roots, suffixes, skip, {}, entry_limit, false});
}

}  // namespace
using oms::docker::runner::parse_request;
using oms::docker::runner::Request;
using oms::test::TempDir;
using oms::test::write_file;
using Args = std::vector<std::string>;

namespace {

const std::string kImage = "sha256:" + std::string(64, 'b');
const std::string kSocket = "/var/run/docker.sock";

struct Fixture {
    TempDir root{"oms-docker-unit"};
    std::string wt = root / "wt";
    RunInputs in;
    Settings settings;
    Fixture() {
        write_file(wt + "/src/main.rs", "fn main() {}\n");
        in.worktree = wt;
        in.private_home = "/tmp/oms-run-abc/home";
        in.temp_dir = "/tmp/oms-run-abc/tmp";
        in.state_dir = "/state";
        in.env = {"PATH=/usr/bin:/bin", "HOME=/tmp/oms-run-abc/home", "TMPDIR=/tmp/oms-run-abc/tmp",
                  "LANG=C.UTF-8", "SOLANA_RPC_URL=http://127.0.0.1:8899"};
        in.argv = {"cargo", "build"};
    }
    ContainerPlan plan(Mode mode = Mode::OneShot, const std::string& user = "1000:1000") {
        return plan_container(settings, kImage, user, in, mode, kSocket);
    }
    Args hardening(const std::string& user = "1000:1000", const std::string& network = "none") const {
        return {"--pull=never", "--read-only", "--cap-drop=ALL", "--security-opt=no-new-privileges",
                "--user=" + user, "--network=" + network, "--pids-limit=512", "--memory=2g", "--memory-swap=2g",
                "--cpus=2", "--tmpfs=/tmp:rw,exec,nosuid,nodev,size=512m,mode=1777"};
    }
};

// The --mount flags that render the policy: all but the resolver's
// resolv.conf (network none), which has a test of its own.
Args policy_mounts(const Args& flags) {
    Args mounts;
    for (const std::string& flag : flags)
        if (flag.rfind("--mount=", 0) == 0 && flag.find("target=/etc/resolv.conf") == std::string::npos)
            mounts.push_back(flag);
    return mounts;
}

Args concat(std::initializer_list<Args> parts) {
    Args out;
    for (const Args& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

}  // namespace

TEST_CASE("plan: the plainest policy gives exactly these one-shot arguments") {
    Fixture f;
    ContainerPlan plan = f.plan();
    Args expected = concat({{"docker", "run", "--rm", "--name=oms-run-1", "--label=oms.managed=one-shot",
                             "--label=oms.worktree=" + f.wt, "--label=oms.run=oms-run-1", "--interactive"},
                            f.hardening(),
                            {"--tmpfs=/tmp/oms-run-abc/home:rw,exec,nosuid,nodev,size=512m,mode=0700,uid=1000,gid=1000",
                             "--tmpfs=/tmp/oms-run-abc/tmp:rw,exec,nosuid,nodev,size=512m,mode=0700,uid=1000,gid=1000",
                             "--mount=type=bind,source=" + f.wt + ",target=" + f.wt,
                             "--mount=type=bind,source=/state/docker/resolv.conf,target=/etc/resolv.conf,readonly",
                             "--workdir=" + f.wt,
                             "--mount=type=bind,source=/opt/oms/oms-docker-runner,target=/.oms/runner,readonly",
                             "--mount=type=bind,source=/state/docker/oms-run-1.relay,target=/.oms/sock,readonly",
                             "--env=PATH", "--env=HOME", "--env=TMPDIR", "--env=LANG", "--env=SOLANA_RPC_URL",
                             kImage, "/.oms/runner", "--answer-dns", "--watch-connects", "--lifeline=/.oms/sock/life.sock", "--keep-env=PATH", "--keep-env=HOME",
                             "--keep-env=TMPDIR", "--keep-env=LANG", "--keep-env=SOLANA_RPC_URL", "--exec", "cargo",
                             "build"}});
    CHECK(one_shot_argv(f.settings, plan, "oms-run-1", f.in.argv, false, "/opt/oms/oms-docker-runner",
                        "/state/docker/oms-run-1.relay", one_shot_labels(f.wt, "oms-run-1")) == expected);
}

TEST_CASE("plan: values of variables never appear in the arguments") {
    Fixture f;
    f.in.env.push_back("TERM=xterm-secretish");
    Args argv = one_shot_argv(f.settings, f.plan(), "n", f.in.argv, false, "/r");
    for (const std::string& a : argv) {
        CAPTURE(a);
        CHECK(a.find("xterm-secretish") == std::string::npos);
        CHECK(a.find("http://127.0.0.1:8899") == std::string::npos);
        CHECK(a.find("/usr/bin:/bin") == std::string::npos);
    }
    CHECK(std::count(argv.begin(), argv.end(), "--env=TERM") == 1);
    // The values travel in the CLI's own environment instead.
    auto env = cli_environment({"HOME=/home/u", "DOCKER_HOST=unix:///d.sock", "AWS_SECRET=x"}, f.plan().env);
    CHECK(std::count(env.begin(), env.end(), "TERM=xterm-secretish") == 1);
    CHECK(std::count(env.begin(), env.end(), "DOCKER_HOST=unix:///d.sock") == 1);
    CHECK(std::count(env.begin(), env.end(), "DOCKER_CONFIG=/home/u/.docker") == 1);
    CHECK(std::count(env.begin(), env.end(), "AWS_SECRET=x") == 0);
}

TEST_CASE("plan: a terminal on stdin adds --tty") {
    Fixture f;
    Args argv = one_shot_argv(f.settings, f.plan(), "n", f.in.argv, true, "/r");
    CHECK(argv[4] == "--interactive");
    CHECK(argv[5] == "--tty");
}

TEST_CASE("plan: .git, pinned files and WRITE_DENY paths are mounted read-only over the worktree") {
    Fixture f;
    write_file(f.wt + "/.git/HEAD", "ref\n");
    write_file(f.wt + "/verify/check.sh", "x\n");
    write_file(f.wt + "/Anchor.toml", "x\n");
    f.in.pinned = {f.wt + "/verify/check.sh", f.wt + "/missing-pin"};
    f.in.rules = {{OMS_RULE_WRITE_DENY, f.wt + "/.git"}, {OMS_RULE_WRITE_DENY, f.wt + "/Anchor.toml"},
                  {OMS_RULE_WRITE_DENY, "/etc/outside"}};
    Args flags = f.plan().flags;
    Args expected_mounts = {"--mount=type=bind,source=" + f.wt + ",target=" + f.wt,
                            "--mount=type=bind,source=" + f.wt + "/verify,target=" + f.wt + "/verify",
                            "--mount=type=bind,source=" + f.wt + "/.git,target=" + f.wt + "/.git,readonly",
                            "--mount=type=bind,source=" + f.wt + "/Anchor.toml,target=" + f.wt + "/Anchor.toml,readonly",
                            "--mount=type=bind,source=" + f.wt + "/verify/check.sh,target=" + f.wt +
                                "/verify/check.sh,readonly"};
    const Args mounts = policy_mounts(flags);
    CHECK(mounts == expected_mounts);
}

// oms verify: the core write-denies the whole snapshot, which is the worktree.
TEST_CASE("plan: a worktree write-denied whole is bound read-only, with nothing mounted below it") {
    Fixture f;
    write_file(f.wt + "/.git/HEAD", "ref\n");
    write_file(f.wt + "/verify/check.sh", "x\n");
    const std::string results = f.root / "results";
    write_file(results + "/keep", "");
    f.in.pinned = {f.wt + "/verify/check.sh"};
    f.in.read_write = {results};
    f.in.rules = {{OMS_RULE_WRITE_DENY, f.wt}, {OMS_RULE_WRITE_DENY, f.wt + "/.git"}};
    const Args mounts = policy_mounts(f.plan().flags);
    CHECK(mounts == Args{"--mount=type=bind,source=" + f.wt + ",target=" + f.wt + ",readonly",
                         "--mount=type=bind,source=" + results + ",target=" + results});
}

TEST_CASE("plan: a pinned file's parent folders are pinned as read-write mount points") {
    Fixture f;
    write_file(f.wt + "/tests/unit/verify.sh", "x\n");
    f.in.pinned = {f.wt + "/tests/unit/verify.sh"};
    const Args mounts = policy_mounts(f.plan().flags);
    CHECK(mounts == Args{"--mount=type=bind,source=" + f.wt + ",target=" + f.wt,
                         "--mount=type=bind,source=" + f.wt + "/tests,target=" + f.wt + "/tests",
                         "--mount=type=bind,source=" + f.wt + "/tests/unit,target=" + f.wt + "/tests/unit",
                         "--mount=type=bind,source=" + f.wt + "/tests/unit/verify.sh,target=" + f.wt +
                             "/tests/unit/verify.sh,readonly"});
}

TEST_CASE("plan: the runner is told the identity of each path bound from below the worktree") {
    Fixture f;
    write_file(f.wt + "/.git/HEAD", "ref\n");
    write_file(f.wt + "/tests/verify.sh", "x\n");
    f.in.pinned = {f.wt + "/tests/verify.sh"};
    auto identity = [](const std::string& path) {
        struct stat st;
        REQUIRE(lstat(path.c_str(), &st) == 0);
        return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + path;
    };
    ContainerPlan plan = f.plan();
    CHECK(plan.expected == Args{identity(f.wt + "/.git"), identity(f.wt + "/tests/verify.sh"), identity(f.wt + "/tests")});
    Args argv = one_shot_argv(f.settings, plan, "n", {"true"}, false, "/r");
    auto runner = std::find(argv.begin(), argv.end(), "/.oms/runner");
    REQUIRE(argv.end() - runner >= 5);
    CHECK(Args(runner, runner + 5) == Args{"/.oms/runner", "--expect=" + plan.expected[0],
                                           "--expect=" + plan.expected[1], "--expect=" + plan.expected[2],
                                           "--answer-dns"});
    CHECK(Args(argv.end() - 2, argv.end()) == Args{"--exec", "true"});
}

TEST_CASE("plan: a path is one quoted CSV field, so none of its bytes becomes a mount option") {
    Fixture f;
    const std::string hostile = f.wt + "/x,source=/,target=" + f.wt;
    write_file(hostile + "/loot-keypair.json", "{}\n");
    write_file(f.wt + "/q\"uote=/a-keypair.json", "{}\n");
    f.in.rules = {{OMS_RULE_READ_DENY_SUFFIX, "-keypair.json"}};
    const Args mounts = policy_mounts(f.plan().flags);
    // Every folder between the worktree and a keypair is pinned (a bind onto
    // itself), each name one quoted field too.
    Args expected{"--mount=type=bind,source=" + f.wt + ",target=" + f.wt};
    std::vector<std::string> pins{f.wt + "/q\"uote="};
    for (size_t slash = hostile.find('/', f.wt.size() + 1); slash != std::string::npos; slash = hostile.find('/', slash + 1))
        pins.push_back(hostile.substr(0, slash));
    pins.push_back(hostile);
    std::sort(pins.begin(), pins.end());
    for (const std::string& pin : pins)
        expected.push_back("--mount=type=bind," + csv_field("source", pin) + "," + csv_field("target", pin));
    expected.push_back("--mount=type=bind,source=/dev/null,\"target=" + f.wt + "/q\"\"uote=/a-keypair.json\",readonly");
    expected.push_back("--mount=type=bind,source=/dev/null,\"target=" + hostile + "/loot-keypair.json\",readonly");
    CHECK(mounts == expected);
    CHECK(csv_field("source", "/a\"b,c") == "\"source=/a\"\"b,c\"");
    CHECK(csv_field("source", "/a=b c") == "source=/a=b c");
}

TEST_CASE("plan: paths docker cannot carry intact stop the run") {
    Fixture f;
    f.in.rules = {{OMS_RULE_READ_DENY_SUFFIX, "-keypair.json"}};
    SECTION("a line break") {
        write_file(f.wt + "/x\nsource=/,target=/y/loot-keypair.json", "{}\n");
        CHECK_THROWS_WITH(f.plan(), Catch::Contains("holds a line break"));
    }
    SECTION("a carriage return") {
        write_file(f.wt + "/x\r-keypair.json", "{}\n");
        CHECK_THROWS_WITH(f.plan(), Catch::Contains("holds a line break"));
    }
    SECTION("bytes that are not UTF-8") {
        write_file(f.wt + "/x\xff-keypair.json", "{}\n");
        CHECK_THROWS_WITH(f.plan(), Catch::Contains("not valid UTF-8"));
    }
    SECTION("a worktree with a line break") {
        f.in.worktree = f.root / "w\nt";
        write_file(f.in.worktree + "/a", "1\n");
        CHECK_THROWS_WITH(f.plan(), Catch::Contains("worktree"));
    }
}

TEST_CASE("plan: .git, a pinned file or a secret file reached through a link stops the run") {
    Fixture f;
    std::string outside = f.root / "home/.ssh";
    write_file(outside + "/id_ed25519", "k\n");
    write_file(outside + "/x-keypair.json", "{}\n");
    SECTION(".git is a link") {
        REQUIRE(symlink(outside.c_str(), (f.wt + "/.git").c_str()) == 0);
        CHECK_THROWS_WITH(f.plan(), Catch::Contains(".git is a symbolic link"));
    }
    SECTION("a pinned file's parent is a link") {
        REQUIRE(symlink(outside.c_str(), (f.wt + "/tests").c_str()) == 0);
        f.in.pinned = {f.wt + "/tests/id_ed25519"};
        CHECK_THROWS_WITH(f.plan(), Catch::Contains("which is a symbolic link"));
    }
    SECTION("a denied path below a link") {
        REQUIRE(symlink(outside.c_str(), (f.wt + "/keys").c_str()) == 0);
        f.in.rules = {{OMS_RULE_READ_DENY, f.wt + "/keys/id_ed25519"}};
        CHECK_THROWS_WITH(f.plan(), Catch::Contains("symbolic link"));
    }
    SECTION("control: a real .git is mounted read-only") {
        write_file(f.wt + "/.git/HEAD", "ref\n");
        Args flags = f.plan().flags;
        CHECK(std::count(flags.begin(), flags.end(),
                         "--mount=type=bind,source=" + f.wt + "/.git,target=" + f.wt + "/.git,readonly") == 1);
    }
}

TEST_CASE("plan: read-only and read-write mounts, with denied paths inside them masked") {
    Fixture f;
    std::string data = f.root / "data", cache = f.root / "cache";
    write_file(data + "/table.csv", "1\n");
    write_file(data + "/.ssh/id_ed25519", "k\n");
    write_file(data + "/deploy/app-keypair.json", "[1]\n");
    write_file(cache + "/wallet/id.json", "[2]\n");
    write_file(f.wt + "/target/deploy/prog-keypair.json", "[3]\n");
    f.in.read_only = {data};
    f.in.read_write = {cache};
    f.in.rules = {{OMS_RULE_READ_DENY, data + "/.ssh"},
                  {OMS_RULE_READ_DENY, "/home/u/.aws"},
                  {OMS_RULE_READ_DENY_SUFFIX, "-keypair.json"},
                  {OMS_RULE_READ_DENY_SUFFIX, "/id.json"}};
    const ContainerPlan plan = f.plan();
    const Args mounts = policy_mounts(plan.flags);
    // The runner finds each pinned folder as the host had it, or stops.
    for (const std::string& pin : {cache + "/wallet", f.wt + "/target", f.wt + "/target/deploy"}) {
        struct stat st;
        REQUIRE(lstat(pin.c_str(), &st) == 0);
        const std::string identity = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + pin;
        CHECK(std::count(plan.expected.begin(), plan.expected.end(), identity) == 1);
    }
    Args expected = {
        "--mount=type=bind,source=" + f.wt + ",target=" + f.wt,
        "--mount=type=bind,source=" + cache + ",target=" + cache,
        // The folders between a write root and its keypairs, pinned; a
        // read-only root's need no pin.
        "--mount=type=bind,source=" + cache + "/wallet,target=" + cache + "/wallet",
        "--mount=type=bind,source=" + f.wt + "/target,target=" + f.wt + "/target",
        "--mount=type=bind,source=" + f.wt + "/target/deploy,target=" + f.wt + "/target/deploy",
        "--mount=type=bind,source=" + data + ",target=" + data + ",readonly",
        "--mount=type=tmpfs,target=" + data + "/.ssh,tmpfs-size=4k,tmpfs-mode=0500",
        "--mount=type=bind,source=/dev/null,target=" + cache + "/wallet/id.json,readonly",
        "--mount=type=bind,source=/dev/null,target=" + data + "/deploy/app-keypair.json,readonly",
        "--mount=type=bind,source=/dev/null,target=" + f.wt + "/target/deploy/prog-keypair.json,readonly",
    };
    CHECK(mounts == expected);
}

TEST_CASE("plan: the run folders' folders in a read-write mount are covered whole, this run's passable to its HOME") {
    Fixture f;
    const std::string tmpdir = f.root / "tmpdir", base = tmpdir + "/oms-runs-7";
    write_file(base + "/oms-run-abc/home/.gitconfig", "[user]\n");
    write_file(base + "/oms-run-zzz/home/.gitconfig", "[user]\n\tname = another run\n");
    write_file(base + "/oms-run-zzz/home/wallet-keypair.json", "[1]\n");  // hidden with the rest, not searched
    write_file(tmpdir + "/oms-runs-8/oms-run-usr/home/.gitconfig", "[user]\n");  // another user's, closed
    f.in.private_home = base + "/oms-run-abc/home";
    f.in.temp_dir = base + "/oms-run-abc/tmp";
    f.in.read_write = {tmpdir};
    f.in.rules = {{OMS_RULE_READ_DENY_SUFFIX, "-keypair.json"}};
    const ContainerPlan plan = f.plan();
    CHECK(policy_mounts(plan.flags) ==
          Args{"--mount=type=bind,source=" + f.wt + ",target=" + f.wt,
               "--mount=type=bind,source=" + tmpdir + ",target=" + tmpdir,
               "--mount=type=tmpfs,target=" + base + ",tmpfs-size=4k,tmpfs-mode=0711",
               "--mount=type=tmpfs,target=" + tmpdir + "/oms-runs-8,tmpfs-size=4k,tmpfs-mode=0500"});
    // Control: with TMPDIR outside every mount, nothing covers it.
    f.in.read_write = {};
    for (const std::string& flag : f.plan().flags) CHECK(flag.find("target=" + base) == std::string::npos);
}

TEST_CASE("plan: the host's /tmp as a read-write mount is the host's, with no tmpfs over it") {
    Fixture f;
    const Args plain = f.plan().flags;  // control: the container's own /tmp
    CHECK(std::count(plain.begin(), plain.end(), "--tmpfs=/tmp:rw,exec,nosuid,nodev,size=512m,mode=1777") == 1);
    f.in.read_write = {"/tmp"};
    const Args flags = f.plan().flags;
    CHECK(std::count(flags.begin(), flags.end(), "--tmpfs=/tmp:rw,exec,nosuid,nodev,size=512m,mode=1777") == 0);
    CHECK(std::count(flags.begin(), flags.end(), "--mount=type=bind,source=/tmp,target=/tmp") == 1);
}

TEST_CASE("plan: a secret file that is also a READ_DENY is masked once (twice stops docker: duplicate mount point)") {
    Fixture f;
    write_file(f.wt + "/both-keypair.json", "[4]\n");
    write_file(f.wt + "/other-keypair.json", "[5]\n");
    f.in.rules = {{OMS_RULE_READ_DENY, f.wt + "/both-keypair.json"}, {OMS_RULE_READ_DENY_SUFFIX, "-keypair.json"}};
    const Args mounts = policy_mounts(f.plan().flags);
    auto masked = [](const std::string& p) { return "--mount=type=bind,source=/dev/null,target=" + p + ",readonly"; };
    CHECK(mounts == Args{"--mount=type=bind,source=" + f.wt + ",target=" + f.wt, masked(f.wt + "/both-keypair.json"),
                         masked(f.wt + "/other-keypair.json")});
}

TEST_CASE("scan: secret files are found below the roots, except in skipped folders, up to a limit") {
    TempDir root("oms-docker-scan");
    write_file(root / "a/x-keypair.json", "1");
    write_file(root / "a/b/id.json", "2");
    write_file(root / "a/b/notid.json", "3");
    write_file(root / "masked/y-keypair.json", "4");
    SecretFindings all = find_suffix_matches({root.path()}, {"-keypair.json", "/id.json"}, {root / "masked"});
    CHECK(all.complete);
    CHECK(all.files == Args{root / "a/b/id.json", root / "a/x-keypair.json"});
    SecretFindings cut = find_suffix_matches({root.path()}, {"-keypair.json"}, {}, 2);
    CHECK_FALSE(cut.complete);
}

TEST_CASE("plan: every .git found in the worktree is mounted read-only; links named .git are not followed") {
    Fixture f;
    write_file(f.wt + "/.git/config", "[core]");
    write_file(f.wt + "/sub/.git/hooks/pre-commit", "hook");
    write_file(f.wt + "/vendor/lib/.git", "gitdir: ../../.git/modules/lib");
    write_file(f.root / "elsewhere/config", "x");
    oms::test::make_dirs(f.wt + "/linked");
    REQUIRE(symlink((f.root / "elsewhere").c_str(), (f.wt + "/linked/.git").c_str()) == 0);
    f.in.rules = {PathRule{OMS_RULE_WRITE_DENY, f.wt + "/.git"}, PathRule{OMS_RULE_WRITE_DENY_NAME, ".git"}};
    const Args mounts = policy_mounts(f.plan().flags);
    auto read_only = [](const std::string& p) { return "--mount=type=bind,source=" + p + ",target=" + p + ",readonly"; };
    auto pinned = [](const std::string& p) { return "--mount=type=bind,source=" + p + ",target=" + p; };
    // The folders holding a nested .git are pinned as mount points first, so
    // a rename of `sub` cannot carry the read-only .git away.
    CHECK(mounts == Args{pinned(f.wt), pinned(f.wt + "/sub"), pinned(f.wt + "/vendor"), pinned(f.wt + "/vendor/lib"),
                         read_only(f.wt + "/.git"), read_only(f.wt + "/sub/.git"), read_only(f.wt + "/vendor/lib/.git")});
}

TEST_CASE("scan: a folder of ours that cannot be read is made readable and searched; else the run stops") {
    TempDir root("oms-docker-scan");
    write_file(root / "h/deploy/x-keypair.json", "1");
    write_file(root / "s/deploy/y-keypair.json", "2");
    REQUIRE(chmod((root / "h").c_str(), 0) == 0);
    REQUIRE(chmod((root / "s").c_str(), 0400) == 0);  // listable, not searchable
    SecretFindings found = find_suffix_matches({root.path()}, {"-keypair.json"}, {});
    CHECK(found.files == Args{root / "h/deploy/x-keypair.json", root / "s/deploy/y-keypair.json"});
    if (geteuid() != 0) {
        // /root is root's 0700 folder: an ordinary user can neither read nor repair it.
        CHECK_THROWS_WITH(find_suffix_matches({"/root"}, {"-keypair.json"}, {}),
                          Catch::Contains("the folder /root cannot be read"));
    }
}

TEST_CASE("plan: the network, user, limits and extra args come from the settings") {
    Fixture f;
    f.settings.network = "oms-surfnet";
    f.settings.pids_limit = 64;
    f.settings.memory = "512m";
    f.settings.cpus = "1.5";
    f.settings.tmpfs_size = "64m";
    f.settings.extra_args = {"--runtime=runsc", "--label=team=x"};
    Args flags = f.plan(Mode::OneShot, "2000:3000").flags;
    Args head(flags.begin(), flags.begin() + 11);
    CHECK(head == Args{"--pull=never", "--read-only", "--cap-drop=ALL", "--security-opt=no-new-privileges",
                       "--user=2000:3000", "--network=oms-surfnet", "--pids-limit=64", "--memory=512m",
                       "--memory-swap=512m", "--cpus=1.5", "--tmpfs=/tmp:rw,exec,nosuid,nodev,size=64m,mode=1777"});
    CHECK(Args(flags.end() - 2, flags.end()) == Args{"--runtime=runsc", "--label=team=x"});
}

TEST_CASE("plan: a lone uid gets the same gid, never group 0") {
    CHECK(normalized_user("1000") == "1000:1000");
    CHECK(normalized_user("1000:100") == "1000:100");
    Fixture f;
    CHECK(f.plan(Mode::OneShot, "4242").user == "4242:4242");
}

TEST_CASE("plan: a mount touching the Docker socket stops the plan") {
    Fixture f;
    f.in.read_only = {"/run"};
    CHECK_THROWS_WITH(f.plan(), Catch::StartsWith("[plugin.docker] read-only mount (--ro): '/run' is or contains the Docker socket"));
    f.in.read_only = {};
    f.in.read_write = {"/var/run/docker.sock"};
    CHECK_THROWS_WITH(f.plan(), Catch::StartsWith("[plugin.docker] read-write mount (--rw): '/var/run/docker.sock'"));
}

TEST_CASE("plan: warm mode keeps the same flags, with HOME and TMPDIR at task-wide paths") {
    Fixture f;
    ContainerPlan warm = f.plan(Mode::Warm);
    ContainerPlan one = f.plan(Mode::OneShot);
    // The same flags (no --init either way: the runner is PID 1).
    CHECK(std::count(one.flags.begin(), one.flags.end(), "--init") == 0);
    CHECK(warm.flags[11] == "--tmpfs=/tmp/oms-home:rw,exec,nosuid,nodev,size=512m,mode=0700,uid=1000,gid=1000");
    CHECK(Args(warm.flags.begin(), warm.flags.begin() + 11) == Args(one.flags.begin(), one.flags.begin() + 11));
    CHECK(Args(warm.flags.begin() + 12, warm.flags.end()) == Args(one.flags.begin() + 13, one.flags.end()));
    CHECK(warm.env == Args{"PATH=/usr/bin:/bin", "HOME=/tmp/oms-home", "TMPDIR=/tmp", "LANG=C.UTF-8",
                           "SOLANA_RPC_URL=http://127.0.0.1:8899"});

    std::string hash = config_hash(warm, "/opt/oms/oms-docker-runner");
    std::string name = warm_name(f.wt, hash);
    Args create = warm_create_argv(f.settings, warm, name, warm_labels(f.wt, hash), "/opt/oms/oms-docker-runner",
                                   runner_socket_dir("/state", name));
    Args expected = concat({{"docker", "run", "--detach", "--name=" + name, "--label=oms.managed=warm",
                             "--label=oms.worktree=" + f.wt, "--label=oms.config-hash=" + hash},
                            warm.flags,
                            {"--mount=type=bind,source=/opt/oms/oms-docker-runner,target=/.oms/runner,readonly",
                             "--mount=type=bind,source=/state/docker/" + name + ",target=/.oms/sock",
                             kImage, "/.oms/runner", "--answer-dns", "--watch-connects", "/.oms/sock/runner.sock"}});
    CHECK(create == expected);
    CHECK(name.rfind("oms-warm-" + fnv_hex(f.wt).substr(0, 12) + "-", 0) == 0);
}

TEST_CASE("plan: the warm container's name changes with its configuration, not between commands") {
    Fixture f;
    std::string first = config_hash(f.plan(Mode::Warm), "/opt/oms/oms-docker-runner");
    f.in.argv = {"ls"};
    f.in.env.push_back("TERM=dumb");
    CHECK(config_hash(f.plan(Mode::Warm), "/opt/oms/oms-docker-runner") == first);  // per-command parts excluded
    f.settings.pids_limit = 100;
    CHECK(config_hash(f.plan(Mode::Warm), "/opt/oms/oms-docker-runner") != first);
    CHECK(config_hash(f.plan(Mode::Warm), "/usr/lib/oms/oms-docker-runner") !=
          config_hash(f.plan(Mode::Warm), "/opt/oms/oms-docker-runner"));
    f.settings.pids_limit = 512;
    f.in.read_only = {f.root.path()};
    CHECK(config_hash(f.plan(Mode::Warm), "/opt/oms/oms-docker-runner") != first);
}

TEST_CASE("plan: a run's own port (egress proxy) is no part of the warm container's identity; a fixed port is") {
    Fixture f;
    // What spawn_warm hashes: the plan with the ports its runner holds for the container's life.
    auto warm_hash = [&f] {
        ContainerPlan plan = f.plan(Mode::Warm);
        const auto held = container_relay_ports(plan_surfnet(f.in), true);
        if (!held.empty()) plan.runner_args.push_back(relay_flag(held));
        return config_hash(plan, "/opt/oms/oms-docker-runner");
    };
    f.in.connect_ports = {8899};
    f.in.run_ports = {41234};
    const std::string first = warm_hash();
    f.in.run_ports = {41235};  // the next run's proxy
    CHECK(warm_hash() == first);
    f.in.run_ports = {};
    CHECK(warm_hash() == first);
    f.in.connect_ports = {8899, 9900};  // control: a fixed port is part of it
    CHECK(warm_hash() != first);
    // A one-shot container is the run's own: it holds the run's port with the others.
    f.in.connect_ports = {8899};
    f.in.run_ports = {41234};
    CHECK(container_relay_ports(plan_surfnet(f.in), false) == std::vector<uint16_t>{8899, 41234});
    CHECK(container_relay_ports(plan_surfnet(f.in), true) == std::vector<uint16_t>{8899});
    CHECK(plan_surfnet(f.in).run_ports == std::vector<uint16_t>{41234});
    f.in.run_ports = {8899};  // already relayed for the container's life: no hold of its own
    CHECK(plan_surfnet(f.in).run_ports.empty());
}

TEST_CASE("exec request: the exact body of exec create and start") {
    Fixture f;
    ContainerPlan warm = f.plan(Mode::Warm);
    CHECK(exec_create_body(warm, f.wt, {"sh", "-c", "echo \"hi\""}, false) ==
          "{\"AttachStdin\":true,\"AttachStdout\":true,\"AttachStderr\":true,\"Tty\":false,\"User\":\"1000:1000\","
          "\"WorkingDir\":\"" + f.wt + "\",\"Env\":[\"PATH=/usr/bin:/bin\",\"HOME=/tmp/oms-home\",\"TMPDIR=/tmp\","
          "\"LANG=C.UTF-8\",\"SOLANA_RPC_URL=http://127.0.0.1:8899\"],\"Cmd\":[\"sh\",\"-c\",\"echo \\\"hi\\\"\"]}");
    CHECK(exec_start_body(false) == "{\"Detach\":false,\"Tty\":false}");
    CHECK(exec_start_body(true) == "{\"Detach\":false,\"Tty\":true}");
}

TEST_CASE("runner request: cwd, counted argv and env, each NUL-terminated") {
    std::string payload = runner_payload("/wt", {"sh", "-c", "echo a b"}, {"PATH=/bin", "HOME=/h"});
    CHECK(payload == std::string("/wt\0" "3\0" "sh\0" "-c\0" "echo a b\0" "2\0" "PATH=/bin\0" "HOME=/h\0", 41));
    // Asking for the command's refused lookups adds two parts after env (the
    // lookups, and untraced ones apart), which an older runner ignores.
    const std::string asking = runner_payload("/wt", {"true"}, {}, true);
    CHECK(asking == std::string("/wt\0" "1\0" "true\0" "0\0" "report-lookups\0" "report-untraced\0", 44));
    Request parsed;
    REQUIRE(parse_request(asking, parsed));
    CHECK(parsed.report_lookups);
    CHECK(parsed.report_untraced);
    Request older;  // an older oms asks for lookups only: untraced ones come as lookups
    REQUIRE(parse_request(std::string("/wt\0" "1\0" "true\0" "0\0" "report-lookups\0", 28), older));
    CHECK(older.report_lookups);
    CHECK_FALSE(older.report_untraced);
}

TEST_CASE("runner request: the run's own ports as an option; an option the runner does not know refuses the request") {
    const std::string asking = runner_payload("/wt", {"true"}, {}, true, {41234, 41235});
    CHECK(asking == std::string("/wt\0" "1\0" "true\0" "0\0" "report-lookups\0" "report-untraced\0"
                                "run-ports=41234,41235\0", 66));
    Request parsed;
    REQUIRE(parse_request(asking, parsed));
    CHECK(parsed.run_ports == std::vector<uint16_t>{41234, 41235});
    CHECK(parsed.report_lookups);
    Request alone;  // without the lookups
    REQUIRE(parse_request(runner_payload("/wt", {"true"}, {}, false, {8080}), alone));
    CHECK(alone.run_ports == std::vector<uint16_t>{8080});
    CHECK_FALSE(alone.report_lookups);
    Request plain;  // control: none asked, none held
    REQUIRE(parse_request(runner_payload("/wt", {"true"}, {}), plain));
    CHECK(plain.run_ports.empty());
    const std::string head("/wt\0" "1\0" "true\0" "0\0", 13);
    for (const std::string& bad : {std::string("run-ports="), std::string("run-ports=0"), std::string("run-ports=70000"),
                                   std::string("run-ports=1,x"), std::string("hold-everything")}) {
        Request refused;
        CAPTURE(bad);
        CHECK_FALSE(parse_request(head + bad + '\0', refused));
    }
}

TEST_CASE("scan: a folder named like a keypair is a match, masked whole and not entered (docker item 3)") {
    Fixture f;
    write_file(f.wt + "/target/deploy/prog-keypair.json/saved.json", "[1,2,3]");
    write_file(f.wt + "/target/deploy/plain/other.json", "{}");
    SecretFindings found = find_suffix_matches({f.wt}, {"-keypair.json"}, {});
    CHECK(found.folders == Args{f.wt + "/target/deploy/prog-keypair.json"});
    CHECK(found.files.empty());  // saved.json is not looked at: the folder is hidden whole
    f.in.rules = {{OMS_RULE_READ_DENY_SUFFIX, "-keypair.json"}};
    const Args flags = f.plan().flags;
    CHECK(std::count(flags.begin(), flags.end(),
                     "--mount=type=tmpfs,target=" + f.wt + "/target/deploy/prog-keypair.json,tmpfs-size=4k,tmpfs-mode=0500") == 1);
}

TEST_CASE("scan: a keypair with another name (a hard link) stops the run, naming both (docker item 2)") {
    Fixture f;
    write_file(f.wt + "/target/deploy/prog-keypair.json", "[1,2,3,SECRET]");
    write_file(f.wt + "/lone-keypair.json", "[4]");
    REQUIRE(link((f.wt + "/target/deploy/prog-keypair.json").c_str(), (f.wt + "/notes.txt").c_str()) == 0);
    SecretFindings found = find_suffix_matches({f.wt}, {"-keypair.json"}, {});
    REQUIRE(found.linked.size() == 1);
    CHECK(found.linked[0].path == f.wt + "/target/deploy/prog-keypair.json");
    CHECK(found.linked[0].names == 2);
    CHECK(found.linked[0].other_names == Args{f.wt + "/notes.txt"});
    f.in.rules = {{OMS_RULE_READ_DENY_SUFFIX, "-keypair.json"}};
    CHECK_THROWS_WITH(f.plan(), Catch::Contains(f.wt + "/target/deploy/prog-keypair.json (a file with 2 names, also " + f.wt +
                                                "/notes.txt)") &&
                                    Catch::Contains("the command did not run"));
    // Control: with the other name gone the keypair is masked and the run goes ahead.
    REQUIRE(unlink((f.wt + "/notes.txt").c_str()) == 0);
    const Args mounts = policy_mounts(f.plan().flags);
    CHECK(std::count(mounts.begin(), mounts.end(), "--mount=type=bind,source=/dev/null,target=" + f.wt +
                                                       "/target/deploy/prog-keypair.json,readonly") == 1);
}
