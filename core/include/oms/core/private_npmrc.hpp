// The private HOME's .npmrc: `fetch-retries=0` and `update-notifier=false`.
// A sandboxed command has no network to the registry (its names resolve to
// "no such host" at once), and npm retries every network error, ENOTFOUND included, waiting 10 s then
// 60 s: 72 s before its error, 0.8 s without the retries (measured with
// `npm install` under landlock). The user's own ~/.npmrc is not readable in
// the sandbox (it may hold registry tokens) and nothing of it is copied; a
// project's .npmrc still applies over this one. npm's update check looks up
// the registry after every command when its record of the last check is
// missing, which it always is in a new private HOME: each npm run then ended
// with a "name lookup refused: registry.npmjs.org" line about nothing the
// command asked for.
#pragma once
#include <string>

namespace oms::core {

inline constexpr char kPrivateNpmrc[] =
    "# oms sandbox: no registry is reachable; fail at once instead of retrying\n"
    "fetch-retries=0\n"
    "update-notifier=false\n";

// Writes <private_home>/.npmrc (0600, never over an existing file); a
// failure is a warning on stderr: npm then only waits for its retries.
void write_private_npmrc(const std::string& private_home);

}  // namespace oms::core
