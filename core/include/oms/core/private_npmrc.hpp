// The private HOME's .npmrc: `fetch-retries=0`. A sandboxed command has no
// network to the registry (its names resolve to "no such host" at once), and
// npm retries every network error, ENOTFOUND included, waiting 10 s then
// 60 s: 72 s before its error, 0.8 s without the retries (measured with
// `npm install` under landlock). The user's own ~/.npmrc is not readable in
// the sandbox (it may hold registry tokens) and nothing of it is copied; a
// project's .npmrc still applies over this one.
#pragma once
#include <string>

namespace oms::core {

inline constexpr char kPrivateNpmrc[] =
    "# oms sandbox: no registry is reachable; fail at once instead of retrying\n"
    "fetch-retries=0\n";

// Writes <private_home>/.npmrc (0600, never over an existing file); a
// failure is a warning on stderr: npm then only waits for its retries.
void write_private_npmrc(const std::string& private_home);

}  // namespace oms::core
