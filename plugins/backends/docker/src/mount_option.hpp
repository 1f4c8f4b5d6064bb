// Docker's --mount value is one CSV record of key=value fields. A path is
// passed as one quoted field so that none of its bytes (a comma, a quote, a
// `source=`) can become a field of its own; a path docker cannot carry intact
// (a newline or carriage return, which its CSV reader splits or rewrites;
// bytes that are not UTF-8, which its JSON request replaces) is refused.
#pragma once
#include <string>

namespace oms::docker {

// Throws sdk::Error(OMS_ERR_UNSUPPORTED) naming `what` and the path when
// docker cannot receive `path` byte for byte.
void require_representable(const std::string& path, const std::string& what);

// `key=value` as one CSV field: quoted (with `"` doubled) when it holds a
// comma, a quote or a line break.
std::string csv_field(const std::string& key, const std::string& value);

// --mount=type=bind,source=...,target=...[,readonly], each path checked and quoted.
std::string bind_mount_flag(const std::string& source, const std::string& target, bool read_only);

// --mount=type=tmpfs,target=...,<options> (options are oms's own, never a path).
std::string tmpfs_mount_flag(const std::string& target, const std::string& options);

}  // namespace oms::docker
