// Starting the docker CLI: posix_spawn with default signal mask and
// dispositions (the host blocks signals in its threads), a chosen
// environment, and the given descriptors as 0, 1, 2.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace oms::docker {

struct CliResult {
    int exit_code = -1;
    std::string out, err;
};

// The CLI's absolute path: `program` itself when it has a '/', else the first
// executable match in `path_list` (':'-separated). Empty when not found.
std::string find_program(const std::string& program, const std::string& path_list);

// Spawns argv[0] (absolute) with `env`; fds in/out/err become 0/1/2. Throws on failure.
pid_t spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env, int in, int out,
                    int err);

// Waits for `pid`; the exit status, or 128+N when signal N ended it.
int wait_process(pid_t pid);

// Runs argv to completion with stdin from /dev/null, capturing its output.
CliResult run_captured(const std::vector<std::string>& argv, const std::vector<std::string>& env);

}  // namespace oms::docker
