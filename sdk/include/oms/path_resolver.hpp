// realpath(3), with each link lookup made once per resolver.
//
// A start resolves the same few prefixes many times over (HOME and the
// folders above it for every toolchain root, secret location and write
// root): realpath reads every component of every path again, about 700
// readlink calls a start. A PathResolver remembers what each component it
// looked at is (a link and its target, a plain name, or an error) and so
// answers the same as realpath from one lookup per distinct component.
//
// What it remembers is as old as the resolver: use one for one piece of
// work (a policy's contribution, a backend's plan) and drop it. The answer
// is a name, checked when it was given, as realpath's is; whoever opens it
// later still decides on what it opens.
//
// Header-only, standard library and POSIX only: the SDK builds without
// Boost, spdlog or toml++.
#pragma once
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace oms::sdk {

class PathResolver {
public:
    // The path with every link, "." and ".." resolved, as realpath(3) gives
    // it; nullopt where realpath fails (a missing component, a loop, a
    // component that is not a folder, no right to look).
    std::optional<std::string> real_path(std::string_view path) {
        if (path.empty()) return std::nullopt;
        // A relative path is taken from the current folder: realpath's own.
        if (path.front() != '/') return libc_real_path(path);
        std::deque<std::string> pending;
        push_components(pending, path);
        std::string resolved;  // "" is "/"; never ends in '/'
        bool resolved_is_folder = true;  // known to be: "/", or a link's own folder
        int links_followed = 0;
        while (!pending.empty()) {
            const std::string part = std::move(pending.front());
            pending.pop_front();
            if (part == ".") {  // only ever the mark of a trailing "/" or "/.": a folder is asked for
                if (!resolved_is_folder && !look_up(resolved).is_folder()) return std::nullopt;
                resolved_is_folder = true;
                continue;
            }
            if (part == "..") {
                // "file/.." fails in realpath (ENOTDIR), as in the kernel.
                if (!resolved_is_folder && !look_up(resolved).is_folder()) return std::nullopt;
                // resolved holds no link, so its parent is lexical ("/.." is "/").
                if (!resolved.empty()) resolved.erase(resolved.rfind('/'));
                resolved_is_folder = true;
                continue;
            }
            std::string candidate = resolved + "/" + part;
            const Entry& entry = look_up(candidate);
            if (entry.error != 0) return std::nullopt;
            if (!entry.is_link) {
                resolved = std::move(candidate);
                resolved_is_folder = false;
                continue;
            }
            if (++links_followed > kMaxLinks) return std::nullopt;  // realpath's ELOOP
            if (!entry.target.empty() && entry.target.front() == '/') resolved.clear();
            resolved_is_folder = true;  // the link's folder, or "/"
            std::deque<std::string> target;
            push_components(target, entry.target);
            pending.insert(pending.begin(), target.begin(), target.end());
        }
        return resolved.empty() ? std::string("/") : resolved;
    }

private:
    // What one absolute, link-free-up-to-here name is.
    struct Entry {
        std::string name;
        bool is_link = false;
        std::string target;
        int error = 0;  // ENOENT, ENOTDIR, EACCES...: realpath fails there too
        mutable int folder = -1;  // asked only before a "..": -1 not yet, 0 no, 1 yes

        bool is_folder() const {
            struct stat st;
            if (folder < 0) folder = ::stat(name.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
            return folder == 1;
        }
    };

    static constexpr int kMaxLinks = 40;  // Linux's own limit for one lookup

    std::unordered_map<std::string, Entry> seen_;

    const Entry& look_up(const std::string& name) {
        auto found = seen_.find(name);
        if (found != seen_.end()) return found->second;
        Entry entry;
        entry.name = name;
        char target[PATH_MAX];
        const ssize_t length = ::readlink(name.c_str(), target, sizeof target);
        if (length >= 0 && size_t(length) < sizeof target) {
            entry.is_link = true;
            entry.target.assign(target, size_t(length));
        } else if (length >= 0) {
            entry.error = ENAMETOOLONG;
        } else if (errno != EINVAL) {  // EINVAL: there, and not a link
            entry.error = errno;
        }
        return seen_.emplace(name, std::move(entry)).first->second;
    }

    // The components of `path`, "." and empty ones left out, but for one "."
    // at the end when a "/" follows the last name ("f/", "f/.", "f//."):
    // realpath then wants that name to be a folder (ENOTDIR otherwise).
    static void push_components(std::deque<std::string>& out, std::string_view path) {
        size_t at = 0;
        bool named = false;
        bool slash_after = false;
        while (at < path.size()) {
            const size_t end = std::min(path.find('/', at), path.size());
            const std::string_view part = path.substr(at, end - at);
            if (!part.empty() && part != ".") {
                out.emplace_back(part);
                named = true;
                slash_after = end < path.size();  // a later name clears it again
            }
            at = end + 1;
        }
        if (named && slash_after && out.back() != "..") out.emplace_back(".");
    }

    static std::optional<std::string> libc_real_path(std::string_view path) {
        const std::string owned(path);
        char resolved[PATH_MAX];
        if (::realpath(owned.c_str(), resolved) == nullptr) return std::nullopt;
        return std::string(resolved);
    }
};

// One resolver for a piece of work on this thread, found by code that does
// not take it as an argument (a helper deep in a plan): while a scope
// lives, PathResolverScope::active() is its resolver; when it ends, the
// one around it, or none. Each shared library has its own (the SDK's
// inline functions are hidden in a plugin), so a plugin's scope never
// reaches the core or another plugin.
class PathResolverScope {
public:
    PathResolverScope() : outer_(current()) { current() = &resolver_; }
    ~PathResolverScope() { current() = outer_; }
    PathResolverScope(const PathResolverScope&) = delete;
    PathResolverScope& operator=(const PathResolverScope&) = delete;

    // The innermost scope's resolver on this thread, or nullptr.
    static PathResolver* active() { return current(); }

private:
    PathResolver resolver_;
    PathResolver* outer_;

    static PathResolver*& current() {
        static thread_local PathResolver* innermost = nullptr;
        return innermost;
    }
};

// realpath(3) of `path`, or nullopt when it does not exist: through the
// innermost PathResolverScope's resolver on this thread when there is one
// (each folder looked up once for the scope's life), else libc's.
inline std::optional<std::string> canonical_path(const std::string& path) {
    if (PathResolver* resolver = PathResolverScope::active()) return resolver->real_path(path);
    char buffer[PATH_MAX];
    if (!realpath(path.c_str(), buffer)) return std::nullopt;
    return std::string(buffer);
}

}  // namespace oms::sdk
