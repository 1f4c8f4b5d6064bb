#include "oms/core/violation_log.hpp"

#include "oms/core/error.hpp"

#include <oms/refusal_log.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

namespace oms::core {

namespace fs = std::filesystem;

ViolationLog::ViolationLog(const std::string& live_file) : live_fd_(refusal_log::open_for_append(live_file.c_str())) {}

ViolationLog::~ViolationLog() {
    if (live_fd_ >= 0) ::close(live_fd_);
}

void ViolationLog::keep(Violation violation) {
    ++count_;
    if (kept_.size() < kMaxKept) kept_.push_back(std::move(violation));
}

void ViolationLog::record(Violation violation) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live_fd_ >= 0 && kept_.size() < kMaxKept)
        refusal_log::append(live_fd_, violation.source.c_str(), violation.host.data(), violation.host.size(),
                            static_cast<unsigned>(violation.port), violation.rule.c_str());
    keep(std::move(violation));
}

std::vector<Violation> refusals_in(int fd) {
    // Read in pieces up to the bound: the file is nearly always empty, and a
    // buffer of the whole bound up front cost 256 page faults at every run's
    // end (a tenth of an empty run's time on a virtual machine).
    std::string text;
    char piece[16384];
    ssize_t n;
    while (text.size() < refusal_log::kMaxFileBytes && (n = ::read(fd, piece, sizeof piece)) > 0)
        text.append(piece, std::min(static_cast<size_t>(n), refusal_log::kMaxFileBytes - text.size()));
    return parse_refusal_lines(text);
}

size_t ViolationLog::add_backend_refusals(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return 0;
    std::vector<Violation> found = refusals_in(fd);
    ::close(fd);
    size_t added = 0;
    std::lock_guard<std::mutex> lock(mutex_);
    for (Violation& v : found) {
        if (v.source == "egress-proxy") continue;
        if (is_hidden_notice(v)) {
            if (hidden_.size() < kMaxKept) hidden_.push_back(std::move(v.host));
            continue;
        }
        keep(std::move(v));
        ++added;
    }
    return added;
}

std::vector<std::string> ViolationLog::hidden_files() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return hidden_;
}

bool is_hidden_notice(const Violation& v) { return v.source == refusal_log::kHiddenSource && v.port == 0; }

std::vector<Violation> parse_refusal_lines(const std::string& text) {
    std::vector<Violation> out;
    size_t at = 0;
    while (at < text.size()) {
        const size_t end = text.find('\n', at);
        if (end == std::string::npos) break;  // a line cut short (the file's bound) is not one
        std::vector<std::string> fields;
        std::stringstream line(text.substr(at, end - at));
        for (std::string field; std::getline(line, field, '\t');) fields.push_back(field);
        at = end + 1;
        if (fields.size() != 5 || fields[0] != "refused" || fields[1].empty() || fields[2].empty()) continue;
        const std::string& port = fields[3];
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) continue;
        const int number = std::stoi(port);
        if (number > 65535) continue;
        out.push_back(Violation{printable_host(fields[1]), printable_host(fields[2]), number, fields[4]});
    }
    return out;
}

std::string violation_target(const Violation& v) {
    if (v.port == 0) return v.host;
    // An IPv6 address in brackets, as in a URL: "[::1]:3000", not "::1:3000".
    const bool ipv6 = v.host.find(':') != std::string::npos;
    return (ipv6 ? "[" + v.host + "]" : v.host) + ":" + std::to_string(v.port);
}

size_t ViolationLog::count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
}

std::vector<Violation> ViolationLog::kept() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_;
}

std::string last_run_path(const std::string& state_dir) { return state_dir + "/last-run.json"; }

std::string printable_host(const std::string& host) {
    std::string out;
    for (char c : host.substr(0, 255)) out += (c >= 0x21 && c <= 0x7e) ? c : '?';
    return out;
}

std::string printable_text(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const bool c1 = c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                        static_cast<unsigned char>(text[i + 1]) <= 0x9f;
        if (c1) ++i;  // both bytes of the one character
        out += (c < 0x20 || c == 0x7f || c1) ? '?' : static_cast<char>(c);
    }
    return out;
}

namespace {

nlohmann::json to_json(const RunRecord& r) {
    nlohmann::json violations = nlohmann::json::array();
    for (const Violation& v : r.violations)
        violations.push_back({{"source", v.source}, {"host", v.host}, {"port", v.port}, {"rule", v.rule}});
    return {{"command", r.command},         {"backend", r.backend},   {"worktree", r.worktree},
            {"finished", r.finished},       {"exit_code", r.exit_code}, {"allow_hosts", r.allow_hosts},
            {"refused", r.refused},         {"violations", violations}, {"hidden", r.hidden}};
}

}  // namespace

namespace {

constexpr size_t kMaxRecordBytes = 1 << 20;  // a record is a few KiB; more is not one

// last-run.json, open, or -1. To write: a regular file of ours with one
// name; anything else there (a hard link to another of our files, someone
// else's file, a link) is removed and the file made again. To read: a
// regular file (O_NONBLOCK: a FIFO there never makes the open wait).
int open_record(const std::string& path, bool for_writing) {
    const int flags = (for_writing ? O_RDWR | O_CREAT : O_RDONLY | O_NONBLOCK) | O_NOFOLLOW | O_CLOEXEC;
    for (int attempt = 0; attempt < 2; ++attempt) {
        const int fd = ::open(path.c_str(), flags, 0600);
        struct stat st;
        const bool regular = fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        if (regular && (!for_writing || (st.st_uid == ::geteuid() && st.st_nlink == 1))) return fd;
        const bool a_link = fd < 0 && errno == ELOOP;  // O_NOFOLLOW met one
        if (fd >= 0) ::close(fd);
        if (!for_writing || (fd < 0 && !a_link) || ::unlink(path.c_str()) != 0) return -1;
    }
    return -1;
}

// A new file renamed over the record: for when its lock is held.
bool replace_record(const std::string& state_dir, const std::string& text) {
    std::string temporary = last_run_path(state_dir) + ".XXXXXX";
    const int fd = ::mkstemp(temporary.data());
    if (fd < 0) return false;
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (written && ::rename(temporary.c_str(), last_run_path(state_dir).c_str()) == 0) return true;
    ::unlink(temporary.c_str());
    return false;
}

}  // namespace

// Written over in place on every run, under an exclusive lock: a new file
// renamed over it freed the old one's block each time, which costs a
// device round trip where the file system discards on free. Nobody waits
// for a lock: a record whose lock is held (another oms writing, or any
// process that opened the file to hold it) is replaced by a new file.
std::optional<std::string> write_run_record(const std::string& state_dir, const RunRecord& record) {
    std::error_code error;
    fs::create_directories(state_dir, error);
    std::string text;
    try {
        // Replaced bytes: a worktree path or command word need not be UTF-8.
        text = to_json(record).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
    const std::string path = last_run_path(state_dir);
    const int fd = open_record(path, true);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        const bool written = ::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()) &&
                             ::ftruncate(fd, static_cast<off_t>(text.size())) == 0;
        ::close(fd);
        if (written) return std::nullopt;
    } else if (fd >= 0) {
        ::close(fd);
    }
    if (!replace_record(state_dir, text)) return "cannot write " + path;
    return std::nullopt;
}

std::optional<RunRecord> read_run_record(const std::string& state_dir) {
    const std::string path = last_run_path(state_dir);
    const int fd = open_record(path, false);
    if (fd < 0) return std::nullopt;
    ::flock(fd, LOCK_SH | LOCK_NB);  // a writer's moment; held by anyone else, read all the same
    std::string text;
    char piece[4096];
    for (ssize_t n; text.size() < kMaxRecordBytes && (n = ::read(fd, piece, sizeof piece)) > 0;)
        text.append(piece, static_cast<size_t>(n));
    ::close(fd);
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        RunRecord r;
        r.command = j.at("command").get<std::vector<std::string>>();
        r.backend = j.at("backend").get<std::string>();
        r.worktree = j.at("worktree").get<std::string>();
        r.finished = j.at("finished").get<std::string>();
        r.exit_code = j.at("exit_code").get<int>();
        r.allow_hosts = j.at("allow_hosts").get<std::vector<std::string>>();
        r.refused = j.at("refused").get<size_t>();
        for (const auto& v : j.at("violations"))
            r.violations.push_back(Violation{v.at("source").get<std::string>(), v.at("host").get<std::string>(),
                                             v.at("port").get<int>(), v.at("rule").get<std::string>()});
        if (j.contains("hidden")) r.hidden = j.at("hidden").get<std::vector<std::string>>();  // older records: none
        return r;
    } catch (const std::exception& e) {
        throw UserError(kExitSoftware, "oms explain --last: " + path + " is not a run record: " + e.what());
    }
}

std::string refusal_summary(const ViolationLog& log) {
    const std::vector<Violation> kept = log.kept();
    const size_t lookups = static_cast<size_t>(
        std::count_if(kept.begin(), kept.end(), [](const Violation& v) { return v.port == 0; }));
    const size_t connections = log.count() - lookups;  // those not kept counted as connections
    std::ostringstream line;
    line << "oms: network: ";
    if (connections > 0) line << connections << (connections == 1 ? " connection" : " connections") << " refused";
    if (connections > 0 && lookups > 0) line << ", ";
    if (lookups > 0) line << lookups << (lookups == 1 ? " name lookup" : " name lookups") << " refused";
    line << ": ";
    const size_t shown = std::min<size_t>(kept.size(), 3);
    for (size_t i = 0; i < shown; ++i)
        line << (i ? "; " : "") << violation_target(kept[i]) << " (" << kept[i].rule << ")";
    if (log.count() > shown) line << "; ...";
    line << " (all of them: oms explain --last)";
    return line.str();
}

}  // namespace oms::core
