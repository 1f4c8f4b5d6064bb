// How the keypair walks open a folder. A folder the walk cannot read would
// hide whatever it holds (a command of an earlier run can chmod 000 the
// folder of a keypair, and restore the mode in the next run to read it), so
// it is never skipped: when the calling user owns it, it is given back its
// owner's read and search rights and read; another user's folder this user
// may neither list nor write holds nothing the user put there and is passed
// over, unless the request says the command can read what the caller cannot;
// otherwise the run fails, naming the folder and how to fix it.
#pragma once
#include <oms/keypair_walk.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <string>

namespace oms::sdk {

// Opens `name` (relative to `at`, or absolute with AT_FDCWD) as a folder to
// list, without following a link at its end. Returns the descriptor, or -1
// with errno set when the entry is gone or is no longer a folder (ENOENT,
// ENOTDIR, ELOOP), its path is too long to name (ENAMETOOLONG), or it is
// another user's folder this user may neither list nor write (EACCES:
// nothing of the user's is in it; request.pass_over_closed_folders_of_others):
// the caller decides. Throws Error (the run fails) for anything else.
int open_walk_folder(int at, const char* name, const std::string& path, const ScanRequest& request);

// An errno that says the entry is gone, or no longer a folder.
inline bool gone_or_not_a_folder(int error) { return error == ENOENT || error == ENOTDIR || error == ELOOP; }

// Whether the link `name` in the open folder `dir_fd` leads to something
// (followed as `cp` would): a link that dangles, or loops, hides nothing
// yet. One whose target's path is too long to follow is kept (fail closed).
inline bool link_leads_somewhere(int dir_fd, const char* name) {
    struct stat st;
    return fstatat(dir_fd, name, &st, 0) == 0 || errno == ENAMETOOLONG;
}

// The same by path, for a walk that kept no descriptor (the cached walk's
// records).
inline bool link_leads_somewhere(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 || errno == ENAMETOOLONG;
}

// Gives the open folder `fd` back its owner's read and search rights when it
// lacks them and we own it (its entries could be listed but not opened).
// True when it changed something.
bool restore_owner_rights(int fd);

// The run stops: `path` could not be read (`error` is an errno); `backend`
// names the backend in the message.
[[noreturn]] void unreadable_folder(const std::string& backend, const std::string& path, int error);

// Who speaks in the search's refusals: the backend named in the request,
// else "keypair search".
inline std::string speaker(const std::string& backend) { return backend.empty() ? "keypair search" : backend; }

}  // namespace oms::sdk
