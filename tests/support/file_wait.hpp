// Waiting for a marker file a command makes: concurrent-run tests start one
// command, wait until it is ready, then start the next.
#pragma once
#include <chrono>
#include <string>

namespace oms::test {

// True once `path` exists; false when `limit` passed first.
bool file_appears(const std::string& path, std::chrono::seconds limit);

// A shell fragment (ending with "; ") that waits, inside a command, until
// `path` exists, at most 30 s.
std::string shell_wait_for(const std::string& path);

}  // namespace oms::test
