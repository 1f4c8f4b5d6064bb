#include "path_spellings.hpp"

#include <climits>
#include <cstdlib>

namespace oms::seatbelt {

std::string keep_path(const std::string& path) { return path; }

std::string without_trailing_slashes(const std::string& path) {
    std::string out = path;
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    return out;
}

static std::string real_path_or_empty(const std::string& path) {
    char buffer[PATH_MAX];
    if (::realpath(path.c_str(), buffer) == nullptr) return {};
    return buffer;
}

std::string resolve_on_this_machine(const std::string& path) {
    // Walk up until a prefix exists, resolve it, and re-attach the missing tail.
    std::string prefix = without_trailing_slashes(path);
    std::string tail;
    while (!prefix.empty()) {
        const std::string real = real_path_or_empty(prefix);
        if (!real.empty()) return without_trailing_slashes(real + tail);
        const auto slash = prefix.rfind('/');
        if (slash == std::string::npos || prefix == "/") break;
        tail = prefix.substr(slash) + tail;
        prefix = slash == 0 ? "/" : prefix.substr(0, slash);
    }
    return path;
}

std::vector<std::string> spellings(const std::string& path, const PathResolver& resolve) {
    const std::string written = without_trailing_slashes(path);
    std::vector<std::string> out{written};
    const std::string resolved = without_trailing_slashes(resolve(written));
    if (!resolved.empty() && resolved != written) out.push_back(resolved);
    return out;
}

std::vector<std::string> ancestors(const std::string& path) {
    std::vector<std::string> out;
    std::string current = without_trailing_slashes(path);
    for (auto slash = current.rfind('/'); slash != std::string::npos && slash > 0; slash = current.rfind('/')) {
        current = current.substr(0, slash);
        out.push_back(current);
    }
    return out;
}

}  // namespace oms::seatbelt
