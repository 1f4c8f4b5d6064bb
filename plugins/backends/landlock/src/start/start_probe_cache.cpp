#include "start_probe_cache.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <oms/text_file.hpp>

namespace oms::landlock {

namespace {

constexpr const char* kVerdictStarted = "verdict started rung ";
constexpr const char* kVerdictRefused = "verdict refused ";
constexpr const char* kAbove = "above ";

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }
std::string after(const std::string& text, const char* prefix) { return text.substr(std::string(prefix).size()); }

// With read(2), not a stream: this runs at every start, and the first
// stream a process opens costs it the locale's set-up.
std::string file_text(const char* path) { return sdk::read_text_file(path).value_or(""); }

std::string first_line(const char* path) {
    std::string text = file_text(path);
    text.resize(std::min(text.size(), text.find('\n')));
    return text;
}

std::string link_text(const char* path) {
    char buffer[256];
    const ssize_t n = readlink(path, buffer, sizeof buffer - 1);
    return n < 0 ? std::string() : std::string(buffer, static_cast<size_t>(n));
}

// The lines of /proc/self/status that say what confines oms itself: a
// seccomp filter around it (a container's, a wrapper's) changes the verdict.
std::string own_confinement() {
    std::istringstream in(file_text("/proc/self/status"));
    std::string line, out;
    while (std::getline(in, line))
        if (line.rfind("Seccomp", 0) == 0 || line.rfind("NoNewPrivs", 0) == 0 || line.rfind("CapEff", 0) == 0)
            out += line + ";";
    return out;
}

// This plugin's own file: another oms build is another file or another mtime.
std::string build_identity() {
    Dl_info info{};
    struct stat st {};
    if (dladdr(reinterpret_cast<void*>(&build_identity), &info) == 0 || !info.dli_fname ||
        stat(info.dli_fname, &st) != 0)
        return "unknown";
    return std::string(info.dli_fname) + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_ino) + " " +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

std::string kernel_release() {
    struct utsname name {};
    return uname(&name) == 0 ? std::string(name.release) + " " + name.version : "unknown";
}

// "verdict started rung 3\nabove <why not rung 1>\n" (rung 2 alike), or "verdict refused <line>\n".
std::string verdict_text(const StartVerdict& verdict) {
    if (!verdict.started) return kVerdictRefused + verdict.refusal + "\n";
    std::string text = kVerdictStarted + std::to_string(verdict.rung) + "\n";
    if (!verdict.above.empty()) text += kAbove + verdict.above + "\n";
    return text;
}

std::optional<StartVerdict> parse_verdict(const std::string& text) {
    std::istringstream lines(text);
    std::string first, second;
    std::getline(lines, first);
    std::getline(lines, second);
    if (starts_with(first, kVerdictRefused)) return StartVerdict{false, after(first, kVerdictRefused), 0, ""};
    if (!starts_with(first, kVerdictStarted)) return std::nullopt;
    const std::string rung = after(first, kVerdictStarted);
    if (rung != "1" && rung != "2" && rung != "3") return std::nullopt;
    return StartVerdict{true, "", rung[0] - '0', starts_with(second, kAbove) ? after(second, kAbove) : ""};
}

}  // namespace

std::string start_probe_key(const std::string& settings) {
    std::ostringstream key;
    key << "boot " << first_line("/proc/sys/kernel/random/boot_id") << "\n"
        << "kernel " << kernel_release() << "\n"
        << "uid " << getuid() << " " << geteuid() << " " << getgid() << "\n"
        << "build " << build_identity() << "\n"
        << "settings " << settings << "\n"
        << "namespaces " << link_text("/proc/self/ns/user") << " " << link_text("/proc/self/ns/mnt") << " "
        << link_text("/proc/self/ns/pid") << "\n"
        << "confinement " << own_confinement() << " apparmor " << first_line("/proc/self/attr/current") << "\n"
        << "switches " << first_line("/proc/sys/kernel/unprivileged_userns_clone") << " "
        << first_line("/proc/sys/user/max_user_namespaces") << " "
        << first_line("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") << "\n";
    return key.str();
}

std::optional<StartVerdict> read_cached_verdict(const std::string& file, const std::string& key) {
    const int fd = open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    const bool ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid();
    const std::string text = ours ? sdk::read_text_fd(fd).value_or("") : std::string();
    close(fd);
    if (text.compare(0, key.size(), key) != 0) return std::nullopt;
    return parse_verdict(text.substr(key.size()));
}

void write_cached_verdict(const std::string& file, const std::string& key, const StartVerdict& verdict) {
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ignored);
    const std::string aside = file + "." + std::to_string(getpid()) + ".new";
    const int fd = open(aside.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    const std::string text = key + verdict_text(verdict);
    const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    if (!written || rename(aside.c_str(), file.c_str()) != 0) unlink(aside.c_str());
}

std::string start_probe_cache_file() {
    const char* state = getenv("XDG_STATE_HOME");
    const char* home = getenv("HOME");
    std::string base;
    if (state && *state == '/') base = std::string(state);
    else if (home && *home == '/') base = std::string(home) + "/.local/state";
    else return "";
    return base + "/oms/landlock-start-probe";
}

StartVerdict cached_start_verdict(const std::string& settings, const std::function<StartVerdict()>& probe) {
    const std::string file = start_probe_cache_file();
    const std::string key = start_probe_key(settings);
    if (!file.empty())
        if (auto cached = read_cached_verdict(file, key)) return *cached;
    StartVerdict verdict = probe();
    if (!file.empty() && verdict.started) write_cached_verdict(file, key, verdict);
    return verdict;
}

void forget_cached_verdict() {
    const std::string file = start_probe_cache_file();
    if (!file.empty()) unlink(file.c_str());
}

}  // namespace oms::landlock
