// npm writes a debug log of every run under ~/.npm/_logs and, when it fails,
// prints that file's path for the user to read. Under oms the path lies in
// the run's private HOME, which is removed with the run, so the line points
// at nothing. After a failed run oms copies the logs the run's npm wrote into
// its state folder and names them on one line.
//
// The private HOME is the command's: every entry is opened without following
// a link, only regular files are copied, each up to a size bound, a few per
// run, under a name checked to be a plain file name.
#pragma once
#include <string>
#include <vector>

namespace oms::core {

// At most this many logs per run, and of each at most this many bytes.
constexpr size_t kKeptNpmLogsPerRun = 5;
constexpr size_t kKeptNpmLogBytes = 8u << 20;
// The folder keeps at most this many logs: the oldest names go first.
constexpr size_t kKeptNpmLogsInAll = 20;

// Copies the `.log` files of <run folder>/home/.npm/_logs into
// <state_dir>/npm-logs; returns the paths of the copies ({} when there was
// none, or the folder cannot be made: a report, never a failure of the run).
std::vector<std::string> keep_npm_logs(int run_root_fd, const std::string& state_dir);

// "oms: npm's log of this run is kept at PATH (...)", or "" for no path.
std::string kept_npm_logs_line(const std::vector<std::string>& kept);

}  // namespace oms::core
