// The runtime manifest: a small TOML file that pins the container image.
//
//   # comments and blank lines are allowed
//   image = "sha256:<64 hex>"            # an image ID, or
//   image = "name@sha256:<64 hex>"       # a digest reference; a bare tag is refused
//   user = "1000:1000"                   # optional, numeric uid:gid, never 0
//   archive = "/path/to/image.tar"       # optional, named in the "load it" hint
//
// It is read with toml++ (header-only). Only the three string keys above are
// accepted; malformed TOML, an unknown key, a value that is not a string or a
// key set twice is an error naming file:line and the key.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace oms::docker {

struct Manifest {
    std::string path;                    // where it was read from
    std::string image;                   // pinned reference
    std::optional<std::string> user;     // "uid:gid"
    std::optional<std::string> archive;  // image tarball for `docker load -i`
};

// Parses manifest text; `path` is used in messages. Throws sdk::Error(INVALID).
Manifest parse_manifest(const std::string& text, const std::string& path);
// Reads and parses the file. Throws sdk::Error(INVALID) when unreadable, not
// a regular file (never blocking on a FIFO) or bad, and sdk::Error(FAILED)
// when the file opened, or the name it was opened by, lies in one of
// `command_written`: the manifest chooses the image and user of every later
// run, so a copy a command could have written is never trusted. The check is
// made on the open descriptor's own path, so a link swapped in after it
// cannot move the read elsewhere.
Manifest load_manifest(const std::string& path, const std::vector<std::string>& command_written = {});

// True for "sha256:<64 lowercase hex>" or "<name>@sha256:<64 lowercase hex>".
bool is_pinned_image(const std::string& reference);
// Empty when `user` is a numeric "uid" or "uid:gid" with neither 0, else the reason.
std::string user_problem(const std::string& user);

}  // namespace oms::docker
