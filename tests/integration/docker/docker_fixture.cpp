#include "docker_fixture.hpp"

#include "process.hpp"

#include <catch2/catch.hpp>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <cstdlib>
#include <iostream>
#include <thread>

namespace oms::test::docker {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

std::string plugin_path() { return env_or("OMS_BUILD_DIR", ".") + "/lib/oms/plugins/oms-docker.so"; }

std::string slurp_fd(int fd) {
    std::string out;
    char buf[8192];
    lseek(fd, 0, SEEK_SET);
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
}

int temp_file(const std::string& content) {
    char path[] = "/tmp/oms-docker-io-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    if (!content.empty() && write(fd, content.data(), content.size()) < 0) FAIL("write failed");
    lseek(fd, 0, SEEK_SET);
    return fd;
}

}  // namespace

ServerSocket::ServerSocket() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t length = sizeof address;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 || listen(fd_, 16) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        FAIL("cannot listen");
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([fd = fd_] {
        for (;;) {
            int client = accept(fd, nullptr, nullptr);
            if (client < 0) return;
            close(client);
        }
    });
}

ServerSocket::~ServerSocket() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
}

// run_process takes an absolute program path.
std::string docker_program() {
    std::string path = env_or("PATH", "/usr/bin:/bin") + ":";
    for (size_t start = 0, end; (end = path.find(':', start)) != std::string::npos; start = end + 1) {
        std::string candidate = path.substr(start, end - start) + "/docker";
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "/usr/bin/docker";
}

Cli docker_cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv{docker_program()};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = run_process(argv, {{}, std::nullopt, "", 120});
    return Cli{r.exit_code, r.out, r.err};
}

void require_daemon() {
    static int state = -1;  // -1 unknown, 1 present
    if (state == 1) return;
    Cli info = docker_cli({"info", "--format", "{{.ServerVersion}}"});
    if (info.code == 0) {
        state = 1;
        return;
    }
    if (env_or("OMS_REQUIRE_DOCKER", "") == "1")
        FAIL("no Docker daemon, and OMS_REQUIRE_DOCKER=1 says one is required: " << info.err);
    std::cerr << "skipped: no Docker daemon (" << trim(info.err)
              << "); start one with tests/docker/start-dockerd.sh" << std::endl;
    std::exit(77);
}

namespace {

std::string image_from(const std::string& script_name) {
    const std::string script = env_or("OMS_SOURCE_DIR", ".") + "/tests/docker/" + script_name;
    ProcessResult r = run_process({"/bin/sh", script});
    if (r.exit_code != 0) FAIL(script_name << " failed: " << r.err);
    return trim(r.out);
}

}  // namespace

const std::string& test_image() {
    static const std::string id = image_from("build-test-image.sh");
    return id;
}

const std::string& node_test_image() {
    static const std::string id = image_from("build-node-test-image.sh");
    return id;
}

unsigned container_uid() { return geteuid() == 0 ? 1000 : geteuid(); }

std::string container_uid_line() { return std::to_string(container_uid()) + "\n"; }

std::string container_user() {
    const unsigned gid = geteuid() == 0 ? 1000 : getegid();
    return std::to_string(container_uid()) + ":" + std::to_string(gid);
}

Task::Task(bool warm, std::map<std::string, std::string> config) : root("oms-docker-it") {
    worktree = root / "wt";
    home = root / "home";
    private_home = root / "run/home";
    temp_dir = root / "run/tmp";
    manifest = root / "runtime.toml";
    write_file(worktree + "/README", "readme\n");
    write_file(worktree + "/.git/config", "[core]\n");
    write_file(worktree + "/verify/pinned.sh", "echo pinned\n");
    write_file(worktree + "/target/deploy/prog-keypair.json", "[1,2,3,SECRETKEY]\n");
    write_file(worktree + "/target/deploy/prog.json", "public\n");
    write_file(home + "/.ssh/id_rsa", "PRIVATE KEY\n");
    make_dirs(private_home);
    make_dirs(temp_dir);
    // The container user owns the worktree, as the host user would. Run by
    // another user than root, the worktree stays the caller's and the
    // container runs as the caller.
    const unsigned id = container_uid();
    if (geteuid() == 0)
        for (const char* p : {"", "/README", "/verify", "/verify/pinned.sh", "/target", "/target/deploy",
                              "/target/deploy/prog.json", "/.git", "/.git/config"})
            if (chown((worktree + p).c_str(), id, id) != 0) FAIL("chown failed");
    chmod(root.path().c_str(), 0755);
    pinned = {worktree + "/verify/pinned.sh"};
    write_file(manifest, "# test image, built by tests/docker/build-test-image.sh\nimage = \"" + test_image() +
                             "\"\nuser = \"" + container_user() + "\"\n");
    env = {"PATH=/bin", "HOME=" + private_home, "TMPDIR=" + temp_dir, "LANG=C.UTF-8"};
    host.strings["manifest"] = manifest;
    host.booleans["warm"] = warm;
    host.integers["pids_limit"] = 64;
    host.strings["memory"] = "64m";
    for (auto& [key, value] : config) host.strings[key] = value;
    recreate_instance();
}

Task::~Task() {
    end_task();
    if (instance_) descriptor_->destroy(instance_);
    if (library_) dlclose(library_);
}

void Task::recreate_instance() {
    if (instance_) descriptor_->destroy(instance_);
    instance_ = nullptr;
    if (!library_) {
        library_ = dlopen(plugin_path().c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library_) FAIL("dlopen " << plugin_path() << ": " << dlerror());
        auto entry = reinterpret_cast<oms_plugin_entry_fn>(dlsym(library_, OMS_PLUGIN_ENTRY_SYMBOL));
        ErrorBuffer error;
        if (!entry || entry(OMS_ABI_MAJOR, OMS_ABI_MINOR, &descriptor_, error.get()) != OMS_OK)
            FAIL("entry failed: " << error.message());
        api_ = static_cast<const oms_backend_api*>(descriptor_->interface);
    }
    ErrorBuffer error;
    if (descriptor_->create(host.api(), &instance_, error.get()) != OMS_OK) FAIL("create failed: " << error.message());
}

ContextBuilder Task::context(const std::vector<std::string>& argv) const {
    ContextBuilder c;
    c.home = home;
    c.worktree = worktree;
    c.private_home = private_home;
    c.temp_dir = temp_dir;
    c.state_dir = root / "state";
    c.read_only = read_only;
    c.read_write = read_write;
    c.pinned = pinned;
    c.argv = argv;
    c.working_dir = working_dir;
    c.parent_env = {"PATH=" + env_or("PATH", "/usr/bin:/bin"), "HOME=" + home, "OMS_TEST_SECRET=hunter2"};
    return c;
}

PolicyBuilder Task::policy() const {
    PolicyBuilder p;
    p.add(OMS_RULE_READ_DENY_TREE, home);
    p.add(OMS_RULE_READ_ALLOW_TREE, worktree);
    p.add(OMS_RULE_READ_DENY, home + "/.ssh");
    p.add(OMS_RULE_READ_DENY_SUFFIX, "-keypair.json");
    p.add(OMS_RULE_READ_DENY_SUFFIX, "/id.json");
    p.add(OMS_RULE_WRITE_ALLOW_TREE, worktree);
    p.add(OMS_RULE_WRITE_DENY, worktree + "/.git");
    p.add(OMS_RULE_WRITE_DENY_NAME, ".git");
    for (auto& pin : pinned) p.add(OMS_RULE_WRITE_DENY, pin);
    // The --ro and --rw folders, opened as the policy plugins open them (the
    // backend mounts only the folders a rule opened).
    for (auto& folder : read_only) p.add(OMS_RULE_READ_ALLOW_TREE, folder);
    for (auto& folder : read_write) p.add(OMS_RULE_WRITE_ALLOW_TREE, folder);
    for (auto& name : {"PATH", "HOME", "TMPDIR", "LANG"}) p.add(OMS_RULE_ENV_PASS, name);
    for (auto& rule : extra_rules) p.add(rule.kind, rule.value, rule.number);
    p.env = env;
    return p;
}

Outcome Task::execute(const std::vector<std::string>& argv, const std::string& stdin_text, int signal_number,
                      int delay_ms, int in_fd) {
    // The secret is in this process's own environment too, where a careless
    // backend could pick it up.
    setenv("OMS_TEST_SECRET", "hunter2", 1);
    ContextBuilder c = context(argv);
    PolicyBuilder p = policy();
    int in = in_fd >= 0 ? dup(in_fd) : temp_file(stdin_text), out = temp_file(""), err = temp_file("");
    ErrorBuffer error;
    void* run = nullptr;
    Outcome o;
    o.status = api_->spawn(instance_, c.build(), p.build(), oms_stdio{in, out, err}, &run, error.get());
    if (o.status == OMS_OK) {
        if (signal_number) {
            std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
            api_->signal(instance_, run, signal_number);
        }
        int32_t code = -1;
        o.status = api_->wait(instance_, run, &code, error.get());
        api_->release(instance_, run);
        o.exit_code = code;
    }
    o.error = error.message();
    o.out = slurp_fd(out);
    o.err = slurp_fd(err);
    for (int fd : {in, out, err}) close(fd);
    return o;
}

Outcome Task::sh(const std::string& script, const std::string& stdin_text) {
    return execute({"/bin/sh", "-c", script}, stdin_text, 0, 0);
}

Outcome Task::run(const std::vector<std::string>& argv, const std::string& stdin_text) {
    return execute(argv, stdin_text, 0, 0);
}

Outcome Task::run_and_signal(const std::vector<std::string>& argv, int signal_number, int delay_ms) {
    return execute(argv, "", signal_number, delay_ms);
}

Outcome Task::run_with_stdin(const std::vector<std::string>& argv, int in_fd) {
    return execute(argv, "", 0, 0, in_fd);
}

int Task::end_task() {
    if (!instance_ || !api_->end_task) return OMS_OK;
    ContextBuilder c = context({"true"});
    ReportCollector report;
    ErrorBuffer error;
    return api_->end_task(instance_, c.build(), report.sink(), error.get());
}

int Task::probe(ReportCollector& report, std::string& error_text) {
    ErrorBuffer error;
    int status = api_->probe(instance_, report.sink(), error.get());
    error_text = error.message();
    return status;
}

}  // namespace oms::test::docker
