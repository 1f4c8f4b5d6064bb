// oms/path_kind.hpp: what a path finally leads to, links followed.
#pragma once
#include <sys/stat.h>

#include <string>

namespace oms::sdk {

enum class Kind { missing, folder, file, other };

// A socket or a FIFO counts as a file: it can be bound over like one.
inline Kind kind_of(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return Kind::missing;
    if (S_ISDIR(st.st_mode)) return Kind::folder;
    if (S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode)) return Kind::file;
    return Kind::other;
}

}  // namespace oms::sdk
