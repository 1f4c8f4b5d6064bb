#include "oms/core/canaries.hpp"

#include "oms/core/error.hpp"
#include "oms/core/folder_writes.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/policy.hpp"
#include "oms/core/policy_guard.hpp"
#include "oms/core/policy_lowering.hpp"
#include "oms/core/run_dir.hpp"
#include "oms/core/scoped_fd.hpp"

#include <oms/path.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/dll/runtime_symbol_info.hpp>
#include <oms/text_file.hpp>

#include <filesystem>

namespace fs = std::filesystem;

namespace oms::core {

namespace {

const char* kSecret = "oms-canary-secret-7f3a";

struct Attempt {
    int exit_code = -1;
    std::string output;
};

// A listening TCP socket on 127.0.0.1 (port 0: any free port).
class Listener {
public:
    explicit Listener(int port) {
        fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int one = 1;
        setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd_, 16) != 0) {
            close(fd_);
            fd_ = -1;
            return;
        }
        socklen_t length = sizeof address;
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
        port_ = ntohs(address.sin_port);
    }
    ~Listener() {
        if (fd_ >= 0) close(fd_);
    }
    int port() const { return port_; }
    bool listening() const { return fd_ >= 0; }

private:
    int fd_ = -1;
    int port_ = 0;
};

// The throw-away world the canaries run in. The "outside" folder must lie
// outside every write root of the policy (the run folder sits in /tmp, which
// is one), so it is chosen once the policy is known.
struct Stage {
    std::string root, home, worktree;
    // Made through descriptors with files created exclusively: a command
    // that can write the temp folder (another run's, under a backend that
    // shares it) cannot make oms write its canaries through a link.
    explicit Stage(const RunDir& dir) : root(dir.root() + "/stage") {
        home = root + "/home";
        worktree = home + "/work/repo";
        ScopedFd ssh(open_folders_at(dir.root_fd(), "stage/home/.ssh"));
        ScopedFd repo(open_folders_at(dir.root_fd(), "stage/home/work/repo"));
        ScopedFd git(repo.get() < 0 ? -1 : open_folders_at(repo.get(), ".git"));
        // The write control's folder: no protected path in it, so a backend
        // that keeps the worktree's top folder (which holds .git) from new
        // entries still lets it through.
        ScopedFd src(repo.get() < 0 ? -1 : open_folders_at(repo.get(), "src"));
        const bool made = ssh.get() >= 0 && git.get() >= 0 && src.get() >= 0 &&
                          write_new_file_at(ssh.get(), "id_ed25519", kSecret) &&
                          write_new_file_at(repo.get(), "wallet-keypair.json", kSecret) &&
                          write_new_file_at(repo.get(), "README", "readable") &&
                          write_new_file_at(git.get(), "config", "[core]\n");
        if (!made) throw UserError(kExitSoftware, "oms doctor --probe: cannot set up the canaries' stage in " + root);
    }
};

// A folder oms can create that no WRITE_ALLOW_TREE rule covers, removed on
// destruction; empty path when there is none (the canary is then inconclusive).
class OutsideFolder {
public:
    explicit OutsideFolder(const std::vector<PolicyRule>& rules) {
        for (const std::string& base : {state_dir(), home_dir() + "/.cache/oms"}) {
            std::error_code error;
            fs::create_directories(base, error);
            std::string candidate = canonical_or_absolute(base) + "/probe-outside-" + std::to_string(getpid());
            if (covered(candidate, rules) || !fs::create_directory(candidate, error)) continue;
            path_ = candidate;
            return;
        }
    }
    ~OutsideFolder() {
        std::error_code error;
        if (!path_.empty()) fs::remove_all(path_, error);
    }
    const std::string& path() const { return path_; }

private:
    static bool covered(const std::string& path, const std::vector<PolicyRule>& rules) {
        for (auto& rule : rules)
            if (rule.kind == OMS_RULE_WRITE_ALLOW_TREE && sdk::path::is_inside(path, rule.value)) return true;
        return false;
    }
    std::string path_;
};

// What a canary left in a file: read without following a link and without
// waiting on a FIFO, so a command cannot point oms at another file.
std::string slurp(const std::string& path) {
    const int fd = sdk::open_regular_file(path, O_NOFOLLOW);
    if (fd < 0) return "";
    std::string text = sdk::read_text_fd(fd).value_or("");
    close(fd);
    return text;
}

class CanaryRunner {
public:
    CanaryRunner(const Session& session, const BackendChoice& backend, const Stage& stage)
        : session_(session), backend_(backend), stage_(stage) {}

    // The rules the canaries run under (the same for every attempt).
    std::vector<PolicyRule> rules() {
        RunDir run_dir;
        RunContext context(inputs(run_dir, {"/bin/true"}));
        Policy policy;
        assemble_policy(session_.registry(), context, policy);
        return policy.rules;
    }

    Attempt run(const std::vector<std::string>& argv) {
        RunDir run_dir;
        RunContext context(inputs(run_dir, argv));
        Policy policy;
        assemble_policy(session_.registry(), context, policy);
        try {
            lower_policy_for_backend(*backend_.record, context, policy);
            refuse_rules_unknown_to_backend(*backend_.record, policy);
        } catch (const UserError& refused) {
            return Attempt{-1, std::string("spawn refused: ") + refused.what()};
        }
        return spawn_and_wait(context, policy, run_dir);
    }

private:
    RunInputs inputs(const RunDir& run_dir, const std::vector<std::string>& argv) const {
        RunInputs in;
        in.platform = current_platform();
        in.home = stage_.home;
        in.worktree = stage_.worktree;
        in.private_home = run_dir.home();
        in.temp_dir = run_dir.temp();
        in.parent_env = {"PATH=/usr/local/bin:/usr/bin:/bin", std::string("AWS_SECRET_ACCESS_KEY=") + kSecret};
        // The helper binary must be runnable inside: lend its folders read-only.
        in.read_only = {executable_dir(), builtin_plugin_dir()};
        in.state_dir = state_dir();
        in.argv = argv;
        return in;
    }

    // The output file is made afresh in the run folder and read back through
    // the same descriptor: whatever lies at its name later is not what is read.
    Attempt spawn_and_wait(const RunContext& context, Policy& policy, const RunDir& run_dir) {
        int out = openat(run_dir.root_fd(), "output", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out < 0) return Attempt{-1, "cannot create the canary's output file in " + run_dir.root()};
        int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
        const oms_backend_api* api = backend_.record->backend();
        void* instance = backend_.instance->handle();
        char message[1024] = {0};
        oms_error error{message, sizeof message};
        void* run = nullptr;
        Attempt attempt;
        if (api->spawn(instance, context.view(), policy.view(), oms_stdio{in, out, out}, &run, &error) == OMS_OK) {
            int32_t code = -1;
            api->wait(instance, run, &code, &error);
            api->release(instance, run);
            attempt.exit_code = code;
        } else {
            attempt.output = std::string("spawn failed: ") + message;
        }
        close(in);
        if (lseek(out, 0, SEEK_SET) == 0) attempt.output += sdk::read_text_fd(out).value_or("");
        close(out);
        return attempt;
    }

    const Session& session_;
    const BackendChoice& backend_;
    const Stage& stage_;
};

// `breach` says what got through, `control_failure` what the allowed thing
// did instead of working.
CanaryResult judge(const std::string& rule, bool blocked, bool control_ok, const std::string& breach,
                   const std::string& control_failure) {
    if (!control_ok)
        return {rule, CanaryStatus::inconclusive, "inconclusive: the positive control failed (" + control_failure + ")"};
    if (!blocked) return {rule, CanaryStatus::fail, "NOT blocked: " + breach};
    return {rule, CanaryStatus::pass, "blocked; control worked"};
}

// The backend's MISSING line declaring it cannot grant `rule` (the line
// begins with the rule's name, docs/rule-semantics.md), or "".
std::string declared_not_granted(const std::vector<std::string>& missing, const std::string& rule) {
    for (const std::string& line : missing)
        if (line.rfind(rule, 0) == 0) return line;
    return "";
}

// The network canary: an allowed port the backend declares it cannot grant
// is "not granted" (it runs stricter, as documented), not inconclusive; the
// refused port is judged all the same.
CanaryResult judge_network(bool blocked, bool control_ok, const std::string& declared) {
    const std::string rule = "connect to a refused loopback port";
    if (!control_ok && !declared.empty()) {
        if (!blocked) return {rule, CanaryStatus::fail, "NOT blocked: the connection was accepted"};
        return {rule, CanaryStatus::not_granted, "not granted: the allowed port 8899 is not reachable, as the backend "
                                                 "declares (\"" + declared + "\"); the refused port stays closed"};
    }
    return judge(rule, blocked, control_ok, "the connection was accepted",
                 "the connection to the allowed port 8899 was refused");
}

std::string oms_path() { return boost::dll::program_location().string(); }

}  // namespace

std::vector<CanaryResult> run_canaries(const Session& session, const BackendChoice& backend) {
    RunDir scratch;
    Stage stage(scratch);
    CanaryRunner runner(session, backend, stage);
    const std::string sh = "/bin/sh";
    std::vector<CanaryResult> results;

    Attempt control_read = runner.run({oms_path(), "__canary", "read", stage.worktree + "/README"});
    bool can_read = control_read.exit_code == 0 && control_read.output.find("readable") != std::string::npos;
    Attempt ssh = runner.run({oms_path(), "__canary", "read", stage.home + "/.ssh/id_ed25519"});
    const std::string unreadable = "a worktree file was not readable";
    results.push_back(judge("read ~/.ssh", ssh.output.find(kSecret) == std::string::npos, can_read,
                            "the secret came out", unreadable));
    Attempt keypair = runner.run({oms_path(), "__canary", "read", stage.worktree + "/wallet-keypair.json"});
    results.push_back(judge("read *-keypair.json in the worktree", keypair.output.find(kSecret) == std::string::npos,
                            can_read, "the keypair came out", unreadable));

    runner.run({sh, "-c", "echo x > " + stage.worktree + "/src/written"});
    bool can_write = fs::exists(stage.worktree + "/src/written");
    OutsideFolder outside(runner.rules());
    if (outside.path().empty()) {
        results.push_back({"write outside the worktree", CanaryStatus::inconclusive,
                           "inconclusive: every folder oms could use lies inside a write root"});
    } else {
        runner.run({sh, "-c", "echo x > " + outside.path() + "/written"});
        results.push_back(judge("write outside the worktree", !fs::exists(outside.path() + "/written"), can_write,
                                "a file appeared in " + outside.path(), "writing in the worktree failed"));
    }
    runner.run({sh, "-c", "echo x >> " + stage.worktree + "/.git/config"});
    results.push_back(judge("write the task's .git", slurp(stage.worktree + "/.git/config") == "[core]\n", can_write,
                            ".git/config changed", "writing in the worktree failed"));

    Listener refused(0), allowed(8899);
    Attempt allowed_connect = runner.run({oms_path(), "__canary", "connect", "127.0.0.1", "8899"});
    Attempt refused_connect =
        runner.run({oms_path(), "__canary", "connect", "127.0.0.1", std::to_string(refused.port())});
    results.push_back(judge_network(refused_connect.exit_code != 0, allowed_connect.exit_code == 0,
                                    declared_not_granted(backend.report.missing, "net-connect-loopback")));

    Attempt env = runner.run({sh, "-c", "printf '%s|%s' \"${AWS_SECRET_ACCESS_KEY-absent}\" \"${PATH-absent}\""});
    results.push_back(judge("scrubbed variable (AWS_SECRET_ACCESS_KEY)", env.output.find(kSecret) == std::string::npos,
                            env.output.find("/bin") != std::string::npos, "the variable reached the command",
                            "PATH did not reach the command"));
    return results;
}

std::string format_canaries(const std::vector<CanaryResult>& results) {
    std::string out = "probe (canaries inside the backend, on a throw-away HOME):\n";
    for (auto& r : results) out += std::string("  ") + status_label(r.status) + "  " + r.rule + ": " + r.detail + "\n";
    return out;
}

const char* status_label(CanaryStatus status) {
    switch (status) {
    case CanaryStatus::pass: return "pass";
    case CanaryStatus::fail: return "FAIL";
    case CanaryStatus::inconclusive: return "inconclusive";
    case CanaryStatus::not_granted: return "not granted";
    }
    return "FAIL";
}

const char* status_name(CanaryStatus status) {
    if (status == CanaryStatus::not_granted) return "not_granted";
    return status == CanaryStatus::fail ? "fail" : status_label(status);
}

int canaries_exit_code(const std::vector<CanaryResult>& results) {
    bool inconclusive = false;
    for (auto& r : results) {
        if (r.status == CanaryStatus::fail) return 1;
        inconclusive = inconclusive || r.status == CanaryStatus::inconclusive;
    }
    return inconclusive ? kExitInconclusive : 0;
}

}  // namespace oms::core
