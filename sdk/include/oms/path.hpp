// Lexical path helpers: containment, parent and normal form, on the text
// alone (nothing is resolved or even looked at on disk). The one place core,
// backends and policies answer "is this path inside that root?", so they
// cannot drift apart at the edges: a sibling with a common prefix ("/a/b-c"
// and "/a/b"), "/" as a root, a trailing or doubled slash, an empty string.
//
// The rule for "..": these helpers never resolve it. "/a/link/.." is not
// "/a" when link is a symlink, so a lexical answer would be a guess; a
// containment check answers false for a path or root holding a ".."
// component, and normalize() reports it (nullopt). Callers that need ".."
// resolved resolve the path on disk first (realpath).
//
// Header-only, standard library only: the SDK builds without Boost, spdlog
// or toml++.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

namespace oms::sdk::path {

namespace detail {

// Walks the components of a path, skipping empty ones (doubled and trailing
// slashes) and "." ones, which name no folder of their own.
class Components {
public:
    explicit Components(std::string_view text) : text_(text) {}

    // The next component, or an empty view at the end.
    std::string_view next() {
        while (at_ < text_.size()) {
            const size_t end = std::min(text_.find('/', at_), text_.size());
            const std::string_view part = text_.substr(at_, end - at_);
            at_ = end + 1;
            if (!part.empty() && part != ".") return part;
        }
        return {};
    }

private:
    std::string_view text_;
    size_t at_ = 0;
};

inline bool has_dot_dot(std::string_view text) {
    Components parts(text);
    for (std::string_view part = parts.next(); !part.empty(); part = parts.next())
        if (part == "..") return true;
    return false;
}

// How far below `root` the path lies: -1 when outside (or not comparable),
// 0 when it is the root itself, 1 when strictly below.
inline int depth_below(std::string_view path, std::string_view root) {
    if (path.empty() || root.empty() || path.front() != '/' || root.front() != '/') return -1;
    if (has_dot_dot(path) || has_dot_dot(root)) return -1;
    Components inner(path), outer(root);
    for (std::string_view want = outer.next(); !want.empty(); want = outer.next())
        if (inner.next() != want) return -1;
    return inner.next().empty() ? 0 : 1;
}

}  // namespace detail

// True for a path that starts with '/'; "" is not absolute (nor a path).
inline bool is_absolute(std::string_view path) { return !path.empty() && path.front() == '/'; }

// True when `path` is `root` or lies below it, compared by whole components:
// "/a/b-c" is not inside "/a/b", "/" holds every absolute path. Doubled and
// trailing slashes and "." components are insignificant ("/a//b/" is inside
// "/a/"). False, never a guess, when either is empty, relative (what it
// names depends on a working folder) or holds a ".." component.
inline bool is_inside(std::string_view path, std::string_view root) { return detail::depth_below(path, root) >= 0; }

// Like is_inside, but the root itself is not below itself: "/a/b" is
// strictly below "/a", "/a" and "/a/" are not.
inline bool is_strictly_below(std::string_view path, std::string_view root) {
    return detail::depth_below(path, root) > 0;
}

// True when `path` is inside one of `roots` (any range of strings or string
// views); false for no roots at all.
template <class Roots>
bool is_inside_any(std::string_view path, const Roots& roots) {
    for (const auto& root : roots)
        if (is_inside(path, root)) return true;
    return false;
}

// The folder holding `path`, like POSIX dirname: trailing and doubled slashes
// before the last component are dropped ("/a//b/" gives "/a"), "/" for "/x"
// and for "/" itself (the root has no parent above it), "." for a relative
// name without a slash and for "". The last component is dropped even when
// it is "." or ".." (the text is not resolved).
inline std::string parent_of(std::string_view path) {
    size_t end = path.size();
    while (end > 0 && path[end - 1] == '/') --end;  // trailing slashes
    while (end > 0 && path[end - 1] != '/') --end;  // the last component
    while (end > 0 && path[end - 1] == '/') --end;  // the slashes before it
    if (end > 0) return std::string(path.substr(0, end));
    return is_absolute(path) ? "/" : ".";
}

// The path's normal spelling: doubled slashes collapsed, "." components and
// trailing slashes dropped ("/a//./b/" gives "/a/b", "/" stays "/", "./"
// gives "."). nullopt for "" and for a path holding a ".." component, which
// is reported rather than resolved (see the note at the top).
inline std::optional<std::string> normalize(std::string_view path) {
    if (path.empty() || detail::has_dot_dot(path)) return std::nullopt;
    std::string out = is_absolute(path) ? "/" : "";
    detail::Components parts(path);
    for (std::string_view part = parts.next(); !part.empty(); part = parts.next()) {
        if (!out.empty() && out.back() != '/') out += '/';
        out += part;
    }
    if (out.empty()) out = ".";  // "." or "./": the working folder itself
    return out;
}

// True when `path` is already in normal form (normalize would return it
// unchanged): not empty, no "//", no "." or ".." component, no trailing
// slash except "/" itself. "." alone is normal (the working folder).
inline bool is_normal(std::string_view path) {
    const std::optional<std::string> normal = normalize(path);
    return normal && *normal == path;
}

}  // namespace oms::sdk::path
