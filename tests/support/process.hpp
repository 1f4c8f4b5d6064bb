// Run a program (usually the built `oms`) and capture what it did.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace oms::test {

struct ProcessResult {
    // Exit status, or 128+N when killed by signal N; 137 when its output
    // stayed open past the timeout, even if the program itself had ended (a
    // process it left holding its stdout or stderr is a hang for any caller).
    int exit_code = -1;
    std::string out;     // everything written to stdout
    std::string err;     // everything written to stderr
};

struct ProcessOptions {
    // Full environment of the child ("NAME=value"); empty means inherit ours.
    std::vector<std::string> env;
    std::optional<std::string> stdin_text;  // nullopt: stdin is /dev/null
    std::string cwd;                        // empty: inherit
    int timeout_seconds = 120;              // for its end and its output's; then SIGKILL and exit_code = 137
};

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The built oms binary (OMS_BIN, set by CTest).
std::string oms_binary();
// Our own environment plus/over the given entries, as "NAME=value".
std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides);
// `env` plus the sanitizers' settings of our own environment (ASAN_OPTIONS,
// UBSAN_OPTIONS, LSAN_OPTIONS) it does not set itself: the sanitizer pass
// (tests/run-sanitizers.sh) sets where reports go and the exit status of a
// finding, which a child started with an environment of its own must keep.
std::vector<std::string> with_sanitizer_options(std::vector<std::string> env);

}  // namespace oms::test
