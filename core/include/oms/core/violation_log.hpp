// The refusals of one run: every connection or name the egress proxy refused
// (host, port, the rule that refused it), and what the backend saw refused
// (its resolver's names, its loopback's connects: oms/refusal_log.hpp),
// kept while the run lasts and written at its end, with what ran, as the
// run record `oms explain --last` reads ($XDG_STATE_HOME/oms/last-run.json,
// replaced atomically; the most recent run to end wins). The proxy's are
// also appended to the run's refusal file as they happen, next to the
// backend's, so a long run's refusals can be read while it runs. Bounded:
// past kMaxKept entries only the count grows, so a command that tries a
// million hosts cannot fill the disk.
#pragma once
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

struct Violation {
    std::string source;  // "egress-proxy", or the backend's ("resolver", "loopback", "relay")
    std::string host;    // printable ASCII only (see printable_host)
    int port = 0;        // 0: a name lookup
    std::string rule;    // what refused it
};

class ViolationLog {
public:
    static constexpr size_t kMaxKept = 1000;
    ViolationLog() = default;
    // Each record() is also appended to `live_file` (the run's refusal file)
    // while fewer than kMaxKept were: none when it cannot be opened.
    explicit ViolationLog(const std::string& live_file);
    ~ViolationLog();
    ViolationLog(const ViolationLog&) = delete;
    ViolationLog& operator=(const ViolationLog&) = delete;
    void record(Violation violation);  // thread-safe
    size_t count() const;
    std::vector<Violation> kept() const;
    // Adds the lines of `path` whose source is not the proxy's (those are
    // recorded already): the backend's, at the run's end. Returns how many.
    // A hidden-file notice (refusal_log::kHiddenSource) is kept apart
    // (hidden_files), never counted as a refusal.
    size_t add_backend_refusals(const std::string& path);
    std::vector<std::string> hidden_files() const;

private:
    void keep(Violation violation);  // under mutex_
    mutable std::mutex mutex_;
    std::vector<Violation> kept_;
    std::vector<std::string> hidden_;  // at most kMaxKept
    size_t count_ = 0;
    int live_fd_ = -1;
};

// Whether a refusal-file line is a hidden-file notice (refusal_log.hpp's
// kHiddenSource), not a refusal.
bool is_hidden_notice(const Violation& v);

// The refusals in a refusal file's text (oms/refusal_log.hpp), in order; a
// line of another shape is skipped.
std::vector<Violation> parse_refusal_lines(const std::string& text);
// The refusals in the first refusal_log::kMaxFileBytes of the open file `fd`
// (a refusals file grows while a run lasts; a line cut short is left out).
std::vector<Violation> refusals_in(int fd);

struct RunRecord {
    std::vector<std::string> command;
    std::string backend, worktree, finished;  // finished: UTC, ISO 8601
    int exit_code = 0;
    std::vector<std::string> allow_hosts;     // as written; empty: no proxy ran
    size_t refused = 0;                        // all refusals, kept or not
    std::vector<Violation> violations;         // the first kMaxKept
    std::vector<std::string> hidden;           // files hidden from the run's commands (the backend's notices)
};

std::string last_run_path(const std::string& state_dir);
// Writes the record over last-run.json in state_dir, in place under an
// exclusive lock, or as a new file renamed over it when that lock is held
// (nobody waits); a failure is returned as text (the run's result stands).
std::optional<std::string> write_run_record(const std::string& state_dir, const RunRecord& record);
// nullopt when no run has ended yet; throws UserError when the file is unreadable.
std::optional<RunRecord> read_run_record(const std::string& state_dir);

// Bytes a command chose, made safe for a log and a terminal: printable ASCII
// kept, anything else as '?', at most 255 characters.
std::string printable_host(const std::string& host);
// Text a command or a run chose (a command line, a path, a rule), made safe
// for a terminal: control characters (C0, DEL and UTF-8-encoded C1, which
// terminals act on) become '?'; spaces and other UTF-8 are kept.
std::string printable_text(const std::string& text);

// "host:port", or the host alone for a name lookup (port 0).
std::string violation_target(const Violation& v);

// The one stderr line after a run with refusals: the counts (connections,
// name lookups) and the first few hosts with their rules, and where the
// whole list is.
std::string refusal_summary(const ViolationLog& log);

}  // namespace oms::core
