#include "landlock_sandbox.hpp"

#include <catch2/catch.hpp>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace oms::test {

const char* const kSshKey = "SSH-PRIVATE-KEY-7f3a";
const char* const kAwsKey = "AWS-SECRET-9c1e";
const char* const kSolanaId = "SOLANA-ID-JSON-55aa";
const char* const kKeypair = "WORKTREE-KEYPAIR-31d0";
const char* const kOtherRepo = "OTHER-REPO-SOURCE-b2b2";

namespace {

std::string build_dir() {
    const char* dir = std::getenv("OMS_BUILD_DIR");
    if (!dir) throw std::runtime_error("OMS_BUILD_DIR is not set (run the tests through ctest)");
    return dir;
}

// Reads both pipes to EOF.
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    int open_count = 2;
    char buffer[65536];
    while (open_count > 0) {
        if (poll(fds, 2, 30000) <= 0) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                (i == 0 ? out : err).append(buffer, static_cast<size_t>(n));
            } else {
                fds[i].fd = -1;
                --open_count;
            }
        }
    }
}

}  // namespace

WorldRoot::WorldRoot() : WorldRoot(build_dir()) {}

WorldRoot::WorldRoot(const std::string& base) {
    std::string pattern = base + "/landlock-world-XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = std::filesystem::canonical(pattern).string();
}

WorldRoot::~WorldRoot() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

World::World() { plant(); }

World::World(const std::string& base) : root(base) { plant(); }

void World::plant() {
    home = root / "home";
    work = root / "work";
    other_repo = home + "/src/other-repo";
    toolchain = home + "/.cargo";
    outside = root / "outside";
    private_home = root / "run/home";
    temp = root / "run/tmp";
    pinned = work + "/tests/verify.sh";
    write_file(home + "/.ssh/id_rsa", kSshKey);
    write_file(home + "/.aws/credentials", kAwsKey);
    write_file(home + "/.config/solana/id.json", kSolanaId);
    write_file(home + "/.netrc", "machine example.com password NETRC-PW");
    write_file(other_repo + "/main.rs", kOtherRepo);
    write_file(toolchain + "/bin/tool-marker", "TOOLCHAIN-OK");
    write_file(work + "/README", "WORKTREE-README");
    write_file(work + "/wallet-keypair.json", kKeypair);
    write_file(work + "/nested/deeper/id.json", kSolanaId);
    write_file(work + "/.git/config", "GIT-CONFIG-ORIGINAL");
    write_file(work + "/.git/HEAD", "ref: refs/heads/main");
    write_file(pinned, "PINNED-ORIGINAL");
    write_file(work + "/tests/helper.sh", "HELPER");
    write_file(outside + "/file", "OUTSIDE-ORIGINAL");
    make_dirs(private_home);
    make_dirs(temp);
    // The build tree may itself sit below /tmp (a CI clone): name a system
    // temp folder of our own so /tmp does not become a write root over the world.
    make_dirs(root / "system-temp");
    write_file(root / "xdg-config/oms/config.toml",
               "[plugin.write-roots]\ntemp_dirs = [\"" + (root / "system-temp") + "\"]\n");
}

LandlockPlugin::LandlockPlugin(FakeHost& host) {
    std::string path = build_dir() + "/lib/oms/plugins/oms-landlock.so";
    library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library_) throw std::runtime_error("cannot load " + path + ": " + dlerror());
    auto entry = reinterpret_cast<oms_plugin_entry_fn>(dlsym(library_, OMS_PLUGIN_ENTRY_SYMBOL));
    ErrorBuffer error;
    if (!entry || entry(OMS_ABI_MAJOR, OMS_ABI_MINOR, &descriptor_, error.get()) != OMS_OK)
        throw std::runtime_error("landlock plugin entry failed: " + error.message());
    api_ = static_cast<const oms_backend_api*>(descriptor_->interface);
    if (descriptor_->create(host.api(), &instance_, error.get()) != OMS_OK) create_error = error.message();
}

LandlockPlugin::~LandlockPlugin() {
    if (instance_) descriptor_->destroy(instance_);
    if (library_) dlclose(library_);
}

PolicyBuilder default_policy(const World& w) {
    PolicyBuilder p;
    p.add(OMS_RULE_READ_DENY_TREE, w.home);
    for (const char* s : {".ssh", ".config/solana", ".aws", "Library", ".config/gh", ".docker", ".netrc", ".npmrc"})
        p.add(OMS_RULE_READ_DENY, w.home + "/" + s);
    p.add(OMS_RULE_READ_DENY_SUFFIX, "-keypair.json");
    p.add(OMS_RULE_READ_DENY_SUFFIX, "/id.json");
    p.add(OMS_RULE_READ_ALLOW_TREE, w.work);
    p.add(OMS_RULE_READ_ALLOW_TREE, w.toolchain);
    p.add(OMS_RULE_READ_ALLOW_TREE, "/usr/bin");
    p.add(OMS_RULE_WRITE_ALLOW_TREE, w.work);
    p.add(OMS_RULE_WRITE_ALLOW_TREE, w.private_home);
    p.add(OMS_RULE_WRITE_ALLOW_TREE, w.temp);
    p.add(OMS_RULE_WRITE_DENY, w.work + "/.git");
    p.add(OMS_RULE_WRITE_DENY, w.pinned);
    p.add(OMS_RULE_WRITE_DENY_NAME, ".git");
    for (const char* name : {"PATH", "HOME", "TMPDIR", "LANG"}) p.add(OMS_RULE_ENV_PASS, name);
    p.add(OMS_RULE_NET_CONNECT_LOOPBACK, "", 8899);
    p.env = {"PATH=/usr/bin:/bin", "HOME=" + w.private_home, "TMPDIR=" + w.temp, "LANG=C.UTF-8"};
    return p;
}

ContextBuilder default_context(const World& w, const std::vector<std::string>& argv) {
    ContextBuilder c;
    c.home = w.home;
    c.worktree = w.work;
    c.private_home = w.private_home;
    c.temp_dir = w.temp;
    c.state_dir = w.root / "state";
    c.pinned = {w.pinned};
    c.argv = argv;
    for (char** e = environ; *e; ++e) c.parent_env.emplace_back(*e);
    return c;
}

RunOutcome run_in_plugin(World& world, const std::string& script, const RunOptions& options) {
    FakeHost host;
    if (options.max_abi) host.integers["max_abi"] = options.max_abi;
    if (!options.hide.empty()) host.string_arrays["hide"] = options.hide;
    LandlockPlugin plugin(host);
    if (!plugin.create_error.empty()) throw std::runtime_error("create failed: " + plugin.create_error);
    auto argv = options.argv.empty() ? std::vector<std::string>{"sh", "-c", script} : options.argv;
    ContextBuilder context = default_context(world, argv);
    context.flags = options.flags;
    context.working_dir = options.working_dir;
    context.read_write = options.read_write;
    PolicyBuilder policy = default_policy(world);
    for (const auto& [kind, value] : options.extra_rules) policy.add(kind, value);
    for (uint16_t port : options.loopback_ports) policy.add(OMS_RULE_NET_CONNECT_LOOPBACK, "", port);

    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC)) throw std::runtime_error("pipe");
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (int fd : options.keep_open) fcntl(fd, F_SETFD, 0);
    RunOutcome outcome;
    ErrorBuffer error;
    void* run = nullptr;
    outcome.spawn_status = plugin.api().spawn(plugin.instance(), context.build(), policy.build(),
                                              oms_stdio{null_fd, out_pipe[1], err_pipe[1]}, &run, error.get());
    close(out_pipe[1]);
    close(err_pipe[1]);
    close(null_fd);
    if (outcome.spawn_status != OMS_OK) {
        outcome.spawn_error = error.message();
        close(out_pipe[0]);
        close(err_pipe[0]);
        return outcome;
    }
    drain(out_pipe[0], err_pipe[0], outcome.out, outcome.err);
    close(out_pipe[0]);
    close(err_pipe[0]);
    int32_t code = -1;
    plugin.api().wait(plugin.instance(), run, &code, error.get());
    plugin.api().release(plugin.instance(), run);
    outcome.exit_code = code;
    return outcome;
}

bool oms_run_available() {
    static int available = -1;
    if (available < 0) {
        auto help = run_process({oms_binary(), "run", "--help"}, {});
        auto plugins = run_process({oms_binary(), "plugins"}, {});
        available = help.exit_code == 0 && (plugins.out + plugins.err).find("secret-deny") != std::string::npos &&
                    (plugins.out + plugins.err).find("landlock") != std::string::npos;
    }
    return available == 1;
}

std::vector<std::string> oms_world_env(const World& world) {
    std::map<std::string, std::string> env{{"HOME", world.home},
                                           {"XDG_CONFIG_HOME", world.root / "xdg-config"},
                                           {"XDG_STATE_HOME", world.root / "xdg-state"},
                                           {"PATH", "/usr/bin:/bin"},
                                           {"OMS_TEST_PARENT_SECRET", "PARENT-ENV-SECRET-4e4e"}};
    return environment_with(env);
}

namespace {

RunOutcome run_oms_in_world(World& world, const std::vector<std::string>& options, const std::string& script,
                            const std::vector<std::string>& extra_env) {
    auto full_env = oms_world_env(world);
    full_env.insert(full_env.end(), extra_env.begin(), extra_env.end());
    std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "landlock", "--worktree", world.work,
                                  "--pinned", world.pinned};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", "sh", "-c", script});
    auto result = run_process(argv, {full_env, std::nullopt, world.work, 60});
    return RunOutcome{OMS_OK, "", result.exit_code, result.out, result.err};
}

}  // namespace

RunOutcome run_in_oms(World& world, const std::string& script, const std::vector<std::string>& extra_env) {
    return run_oms_in_world(world, {}, script, extra_env);
}

RunOutcome run_in_oms_with_options(World& world, const std::vector<std::string>& options, const std::string& script,
                                   const std::vector<std::string>& extra_env) {
    return run_oms_in_world(world, options, script, extra_env);
}

RunOutcome run_in_oms_with_rw(World& world, const std::string& read_write, const std::string& script,
                              const std::vector<std::string>& extra_env) {
    return run_oms_in_world(world, {"--rw", read_write}, script, extra_env);
}

std::vector<Driver> drivers() {
    // Both drivers, always: the real binary is what users run.
    if (!oms_run_available()) FAIL(oms_binary() << " cannot run commands with the landlock and policy plugins");
    return {Driver::plugin, Driver::oms};
}

const char* driver_name(Driver driver) { return driver == Driver::oms ? "oms run" : "plugin C ABI"; }

RunOutcome run_confined(Driver driver, World& world, const std::string& script) {
    return driver == Driver::oms ? run_in_oms(world, script) : run_in_plugin(world, script);
}

std::string probe_tool() {
    const char* dir = std::getenv("OMS_LANDLOCK_PROBE");
    if (!dir) throw std::runtime_error("OMS_LANDLOCK_PROBE is not set (run the tests through ctest)");
    return dir;
}

}  // namespace oms::test
