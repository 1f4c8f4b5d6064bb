// A backend broken on purpose, for the conformance kit's own test: it claims
// confinement but runs the command on the host, hands the command the
// caller's environment on top of the policy's, leaks every descriptor, and
// ends a missing command with 1 instead of failing spawn or 127. Never load
// it in oms.
#include <oms/sdk.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <vector>

extern char** environ;

namespace {

class HostRun final : public oms::sdk::Run {
public:
    explicit HostRun(pid_t pid) : pid_(pid) {}
    ~HostRun() override {
        if (!reaped_) {
            kill(pid_, SIGKILL);
            wait();
        }
    }
    void signal(int signal_number) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!reaped_) kill(pid_, signal_number);
    }
    int wait() override {
        int raw = 0;
        while (waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
        }
        std::lock_guard<std::mutex> lock(mutex_);
        reaped_ = true;
        return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    }

private:
    pid_t pid_;
    std::mutex mutex_;
    bool reaped_ = false;
};

class BrokenBackend final : public oms::sdk::BackendPlugin {
public:
    static constexpr const char* id = "broken-fixture";
    static constexpr const char* version = "0.0.1";
    static constexpr const char* summary = "fixture: claims confinement, enforces nothing, leaks env and descriptors";
    static constexpr uint32_t flags = OMS_BACKEND_CONFINES;
    static constexpr uint32_t strength = 0;
    static constexpr const char* platforms = "linux";
    static const oms_config_key* config_keys() { return nullptr; }
    static size_t config_key_count() { return 0; }
    using BackendPlugin::BackendPlugin;

    void probe(const oms::sdk::Report& report) override { report.summary("broken fixture"); }
    void render(const oms::sdk::Context&, const oms::sdk::Policy&, const oms::sdk::Report& report) override {
        report.text("nothing");
    }

    std::unique_ptr<oms::sdk::Run> spawn(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                         oms_stdio stdio) override {
        std::vector<std::string> args, env;
        for (auto a : context.argv()) args.emplace_back(a);
        for (char** e = environ; *e; ++e) env.emplace_back(*e);  // fault: the caller's environment
        for (auto e : policy.env()) env.emplace_back(e);
        std::vector<char*> argv, envp;
        for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
        envp.push_back(nullptr);
        const std::string cwd(context.worktree());
        pid_t pid = fork();
        if (pid < 0) throw oms::sdk::Error(OMS_ERR_FAILED, "fork failed");
        if (pid == 0) {
            sigset_t empty;
            sigemptyset(&empty);
            sigprocmask(SIG_SETMASK, &empty, nullptr);
            dup2(stdio.in, 0);
            dup2(stdio.out, 1);
            dup2(stdio.err, 2);
            if (chdir(cwd.c_str()) != 0) _exit(1);
            // fault: no descriptor is closed
            execvpe(argv[0], argv.data(), envp.data());
            _exit(1);  // fault: a missing command ends with 1
        }
        return std::unique_ptr<oms::sdk::Run>(new HostRun(pid));
    }
};

}  // namespace

OMS_EXPORT_BACKEND_PLUGIN(BrokenBackend)
