#include "launcher.hpp"

#include <oms/process.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::seatbelt {

namespace {

using oms::sdk::Error;

constexpr const char* kProfileFolder = "seatbelt-profiles";

[[noreturn]] void fail(const std::string& what) {
    throw Error(OMS_ERR_FAILED, "seatbelt: " + what + ": " + std::strerror(errno));
}

// The folder for profile files: <state_dir>/seatbelt-profiles, 0700, never
// a link. Not the run's temp folder: under Seatbelt every run may write the
// system temp folders where the run folders lie, so a command of another run
// could rewrite a profile there before sandbox-exec reads it. The state
// folder is outside every write root (oms refuses a worktree around it and
// write-denies it inside a write root).
int open_profile_folder(const std::string& state_dir) {
    if (state_dir.empty() || state_dir[0] != '/')
        throw Error(OMS_ERR_INVALID, "seatbelt: the run has no state folder for the profile");
    const int state = ::open(state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (state < 0) fail("cannot open the state folder " + state_dir);
    if (::mkdirat(state, kProfileFolder, 0700) != 0 && errno != EEXIST) {
        ::close(state);
        fail("cannot create " + state_dir + "/" + kProfileFolder);
    }
    const int folder = ::openat(state, kProfileFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    ::close(state);
    struct stat info {};
    if (folder < 0 || ::fstat(folder, &info) != 0) fail("cannot open " + state_dir + "/" + kProfileFolder);
    if (info.st_uid != ::geteuid() || (info.st_mode & 077) != 0) {
        ::close(folder);
        errno = EPERM;
        fail(state_dir + "/" + kProfileFolder + " is not a private folder of this user");
    }
    return folder;
}

// Writes the profile to a fresh 0600 file in the state folder and returns its path.
std::string write_profile_file(const std::string& state_dir, const std::string& text) {
    // mkstemps creates the name exclusively (O_EXCL, 0600) in a folder that
    // was just checked to be this user's own, 0700 and not a link.
    ::close(open_profile_folder(state_dir));
    std::string path = state_dir + "/" + kProfileFolder + "/oms-seatbelt-XXXXXX.sb";
    const int fd = ::mkstemps(path.data(), 3);
    if (fd < 0) fail("cannot create a profile file in " + state_dir + "/" + kProfileFolder);
    size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            ::unlink(path.c_str());
            fail("cannot write the profile file " + path);
        }
        written += static_cast<size_t>(n);
    }
    ::fchmod(fd, 0600);
    ::close(fd);
    return path;
}

// The command under sandbox-exec; the profile file lives as long as the run.
class SeatbeltRun final : public oms::sdk::Run {
public:
    SeatbeltRun(std::unique_ptr<oms::sdk::ChildProcess> child, std::string profile_file)
        : child_(std::move(child)), profile_file_(std::move(profile_file)) {}
    ~SeatbeltRun() override {
        child_.reset();  // kills and reaps a command that was never waited for
        ::unlink(profile_file_.c_str());
    }
    void signal(int signal_number) override { child_->signal(signal_number); }
    int wait() override { return child_->wait(); }

private:
    std::unique_ptr<oms::sdk::ChildProcess> child_;
    std::string profile_file_;
};

}  // namespace

std::vector<std::string> sandbox_exec_argv(const std::string& sandbox_exec, const std::string& profile_file,
                                           const std::vector<ProfileParameter>& parameters,
                                           const std::vector<std::string>& argv) {
    std::vector<std::string> out{sandbox_exec};
    for (const auto& parameter : parameters) {
        out.push_back("-D");
        out.push_back(parameter.name + "=" + parameter.value);
    }
    out.push_back("-f");
    out.push_back(profile_file);
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

std::unique_ptr<oms::sdk::Run> launch(const LaunchRequest& request) {
    if (request.argv.empty()) throw Error(OMS_ERR_INVALID, "seatbelt: no command to run");
    // sandbox-exec would read a leading '-' as one of its own options.
    if (request.argv[0].empty() || request.argv[0][0] == '-')
        throw Error(OMS_ERR_INVALID, "seatbelt: the command name may not start with '-'");
    const std::string profile_file = write_profile_file(request.state_dir, request.profile.text);
    oms::sdk::ExecSpec spec;
    spec.argv = sandbox_exec_argv(request.sandbox_exec, profile_file, request.profile.parameters, request.argv);
    spec.env = request.env;
    spec.cwd = request.cwd;
    spec.stdio = request.stdio;
    try {
        return std::make_unique<SeatbeltRun>(oms::sdk::ChildProcess::start(spec), profile_file);
    } catch (const Error& e) {
        ::unlink(profile_file.c_str());
        throw Error(OMS_ERR_FAILED, std::string("seatbelt: cannot start ") + request.sandbox_exec + " in " +
                                        request.cwd + ": " + e.what());
    }
}

}  // namespace oms::seatbelt
