// sdk.hpp keeps C++ exceptions inside the plugin: every trampoline turns them
// into a status and a message; the entry checks the host's ABI version.
#include "plugin_harness.hpp"
#include "temp_dir.hpp"

#include <oms/process.hpp>
#include <oms/sdk.hpp>
#include <oms/text_file.hpp>

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace oms::test;

namespace {

const oms_config_key kKeys[] = {{sizeof(oms_config_key), "mode", OMS_CONFIG_STRING, 0, "how to fail"}};

class Thrower final : public oms::sdk::PolicyPlugin {
public:
    static constexpr const char* id = "thrower";
    static constexpr const char* version = "1.0.0";
    static constexpr const char* summary = "throws on demand";
    static const oms_config_key* config_keys() { return kKeys; }
    static size_t config_key_count() { return 1; }
    explicit Thrower(oms::sdk::Host host) : PolicyPlugin(host), mode_(host.string("mode").value_or("ok")) {
        if (mode_ == "create") throw std::runtime_error("cannot create");
    }
    void contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) override {
        if (mode_ == "std") throw std::runtime_error("std failure");
        if (mode_ == "status") throw oms::sdk::Error(OMS_ERR_UNSUPPORTED, "unsupported here");
        if (mode_ == "other") throw 42;
        sink.add(OMS_RULE_READ_ALLOW_TREE, context.worktree(), "thrower: worktree");
    }

private:
    std::string mode_;
};

}  // namespace

OMS_EXPORT_POLICY_PLUGIN(Thrower)

namespace {

struct Loaded {
    FakeHost host;
    const oms_plugin_descriptor* descriptor = nullptr;
    void* instance = nullptr;
    ErrorBuffer error;
    oms_status created = OMS_ERR_INTERNAL;
    explicit Loaded(const std::string& mode) {
        host.strings["mode"] = mode;
        REQUIRE(oms_plugin_entry(OMS_ABI_MAJOR, OMS_ABI_MINOR, &descriptor, error.get()) == OMS_OK);
        created = descriptor->create(host.api(), &instance, error.get());
    }
    ~Loaded() {
        if (created == OMS_OK) descriptor->destroy(instance);
    }
    oms_status contribute(RuleCollector& rules) {
        ContextBuilder context;
        context.worktree = "/work/tree";
        auto api = static_cast<const oms_policy_api*>(descriptor->interface);
        return api->contribute(instance, context.build(), rules.sink(), error.get());
    }
};

}  // namespace

TEST_CASE("the descriptor says what the plugin is") {
    Loaded plugin("ok");
    CHECK(plugin.descriptor->struct_size == sizeof(oms_plugin_descriptor));
    CHECK(std::string(plugin.descriptor->id) == "thrower");
    CHECK(std::string(plugin.descriptor->kind) == OMS_KIND_POLICY);
    CHECK(plugin.descriptor->config_key_count == 1);
    RuleCollector rules;
    CHECK(plugin.contribute(rules) == OMS_OK);
    CHECK(rules.values(OMS_RULE_READ_ALLOW_TREE) == std::vector<std::string>{"/work/tree"});
}

TEST_CASE("exceptions become statuses and messages") {
    struct Case {
        const char* mode;
        oms_status status;
        const char* message;
    };
    for (Case c : {Case{"std", OMS_ERR_INTERNAL, "std failure"}, Case{"status", OMS_ERR_UNSUPPORTED, "unsupported here"},
                   Case{"other", OMS_ERR_INTERNAL, "unknown exception inside the plugin"}}) {
        Loaded plugin(c.mode);
        RuleCollector rules;
        CHECK(plugin.contribute(rules) == c.status);
        CHECK(plugin.error.message() == c.message);
        CHECK(rules.rules.empty());
    }
    Loaded failing("create");
    CHECK(failing.created == OMS_ERR_INTERNAL);
    CHECK(failing.error.message() == "cannot create");
}

TEST_CASE("the entry refuses a host with another major ABI") {
    const oms_plugin_descriptor* descriptor = nullptr;
    ErrorBuffer error;
    CHECK(oms_plugin_entry(OMS_ABI_MAJOR + 1, 0, &descriptor, error.get()) == OMS_ERR_UNSUPPORTED);
    CHECK(descriptor == nullptr);
    CHECK_THAT(error.message(), Catch::Contains("plugin needs oms ABI 1.0, host has 2.0"));  // it targets 1.0
}

TEST_CASE("write_error truncates to the caller's buffer") {
    char small[6];
    oms_error error{small, sizeof small};
    oms::sdk::write_error(&error, "a long message");
    CHECK(std::string(small) == "a lon");
    oms::sdk::write_error(nullptr, "ignored");  // no buffer: nothing happens
}

TEST_CASE("ChildProcess: exact env, cwd, exit status, 128+N, and a failure before exec is reported") {
    TempDir dir;
    oms::sdk::ExecSpec spec;
    spec.argv = {"sh", "-c", "echo \"$ONLY|$PWD|${HOME-unset}\" > out; exit 5"};
    spec.env = {"PATH=/usr/bin:/bin", "ONLY=yes"};
    spec.cwd = dir.path();
    auto child = oms::sdk::ChildProcess::start(spec);
    CHECK(child->wait() == 5);
    CHECK(read_file(dir / "out") == "yes|" + dir.path() + "|unset\n");

    spec.argv = {"sh", "-c", "kill -KILL $$"};
    CHECK(oms::sdk::ChildProcess::start(spec)->wait() == 128 + 9);

    spec.argv = {"/bin/sh", "-c", "touch should-not-exist"};
    CHECK_THROWS_WITH(oms::sdk::ChildProcess::start(spec, [] { throw std::runtime_error("confinement refused"); }),
                      "confinement refused");
    CHECK_FALSE(exists(dir / "should-not-exist"));
}

TEST_CASE("text_file.hpp: what is written is read back; a missing or too long file reads as nothing") {
    oms::test::TempDir dir("oms-text-file");
    const std::string path = dir / "marker";
    REQUIRE(oms::sdk::write_text_file(path, "4242\nsecond line\n"));
    CHECK(oms::sdk::read_text_file(path) == std::optional<std::string>("4242\nsecond line\n"));
    REQUIRE(oms::sdk::write_text_file(path, "short"));  // replaced, not appended
    CHECK(oms::sdk::read_text_file(path) == std::optional<std::string>("short"));
    CHECK_FALSE(oms::sdk::read_text_file(dir / "missing").has_value());
    CHECK_FALSE(oms::sdk::write_text_file(dir / "no/such/folder/file", "x"));
    const std::string big(10000, 'b');
    REQUIRE(oms::sdk::write_text_file(path, big));
    CHECK_FALSE(oms::sdk::read_text_file(path, 100).has_value());  // longer than the limit: not a whole file
    CHECK(oms::sdk::read_text_file(path, big.size()) == std::optional<std::string>(big));  // exactly the limit
    CHECK(oms::sdk::read_text_file(path)->size() == big.size());
}

namespace {

// Runs `read_text_file(path)` in a child and says whether it came back
// within two seconds with nothing read: a FIFO without a writer would hold
// a plain open() forever, so the deadline is the test.
bool reads_as_nothing_without_blocking(const std::string& path) {
    pid_t child = fork();
    if (child == 0) _exit(oms::sdk::read_text_file(path).has_value() ? 1 : 0);
    for (int waited_ms = 0; waited_ms < 2000; waited_ms += 10) {
        int status = 0;
        if (waitpid(child, &status, WNOHANG) == child) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        usleep(10 * 1000);
    }
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    return false;
}

}  // namespace

TEST_CASE("text_file.hpp: a FIFO, a folder or a device where a small file was expected reads as nothing, at once") {
    oms::test::TempDir dir("oms-text-file-kind");
    const std::string fifo = dir / "runtime.toml";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(reads_as_nothing_without_blocking(fifo));
    CHECK(reads_as_nothing_without_blocking(dir.path()));
    CHECK(reads_as_nothing_without_blocking("/dev/zero"));  // endless: refused as a device, not read up to the limit
    // Positive controls: a regular file and a /proc entry still read.
    REQUIRE(oms::sdk::write_text_file(dir / "plain", "image = 1\n"));
    CHECK(oms::sdk::read_text_file(dir / "plain") == std::optional<std::string>("image = 1\n"));
    CHECK(oms::sdk::read_text_file("/proc/self/status")->find("Pid:") != std::string::npos);
}

TEST_CASE("Context::working_dir: the field when present, else the worktree (1.0 host or NULL)") {
    oms_run_context raw{};
    raw.struct_size = sizeof(oms_run_context);
    raw.worktree = "/w";
    raw.working_dir = "/w/sub";
    CHECK(oms::sdk::Context(&raw).working_dir() == "/w/sub");
    raw.working_dir = nullptr;
    CHECK(oms::sdk::Context(&raw).working_dir() == "/w");
    raw.working_dir = "/w/sub";
    raw.struct_size = offsetof(oms_run_context, working_dir);  // what a 1.0 host fills in
    CHECK(oms::sdk::Context(&raw).working_dir() == "/w");
}

TEST_CASE("checked_working_dir: the worktree or a plain folder below it, else an error") {
    oms_run_context raw{};
    raw.struct_size = sizeof(oms_run_context);
    raw.worktree = "/w";
    auto checked = [&](const char* dir) {
        raw.working_dir = dir;
        return oms::sdk::checked_working_dir(oms::sdk::Context(&raw));
    };
    CHECK(checked("/w/a/b") == "/w/a/b");
    CHECK(checked("/w") == "/w");
    CHECK(checked(nullptr) == "/w");
    for (const char* outside : {"/w2", "/", "/etc", "/w/../etc", "/w/a/..", "/w/./a", "w/a", "/w//a"}) {
        INFO(outside);
        CHECK_THROWS_AS(checked(outside), oms::sdk::Error);
    }
}

TEST_CASE("Context::refusal_log: the field when present, else empty (a host before 1.3, or NULL)") {
    oms_run_context raw{};
    raw.struct_size = sizeof(oms_run_context);
    raw.refusal_log = "/run/refusals";
    CHECK(oms::sdk::Context(&raw).refusal_log() == "/run/refusals");
    raw.refusal_log = nullptr;
    CHECK(oms::sdk::Context(&raw).refusal_log().empty());
    raw.refusal_log = "/run/refusals";
    raw.struct_size = offsetof(oms_run_context, refusal_log);  // what a 1.2 host fills in
    CHECK(oms::sdk::Context(&raw).refusal_log().empty());
}
