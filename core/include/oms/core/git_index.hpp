// A reader for git's index file (.git/index, the "DIRC" format, versions 2,
// 3 and 4, SHA-1 or SHA-256 object names), so `oms verify` can list the
// tracked files without running git. The index lies in the worktree, which a
// command may have written: git run on such a repository can be made to
// fetch objects and run programs (a promisor remote, a sparse index, hooks),
// while this reader only parses bytes, every length checked against the
// buffer, and never opens anything else.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace oms::core {

struct GitIndexParse {
    std::vector<std::string> files;          // tracked paths, as git spells them, each once, in index order
    std::vector<std::string> sparse_folders;  // "dir/" entries of a sparse index (their files are not listed)
    std::optional<std::string> problem;      // set (and both lists empty) when the bytes are not an index oms reads
};

// Parses the whole content of an index file, in time linear in its size and
// holding at most a few times it. A malformed or truncated file, an unknown
// version, a split index (its entries live in another file), a path with an
// empty, ".", ".." or ".git" part or longer than 4095 bytes, entries out of
// git's order, or (version 4) paths adding up to more than 8 times the
// file's size gives `problem`.
GitIndexParse parse_git_index(std::string_view bytes);

}  // namespace oms::core
