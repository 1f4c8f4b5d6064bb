// Removing a folder tree that a sandboxed command could write to while we
// remove it. Every step is relative to a descriptor opened without following
// symbolic links, so swapping a folder for a link (the command can write
// /tmp) never makes oms change or delete anything outside the tree.
#pragma once
#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace oms::core {

// The names in the open folder `folder`, "." and ".." left out.
std::vector<std::string> folder_entries(int folder);

constexpr uid_t kAnyOwner = static_cast<uid_t>(-1);

// Opens the subfolder `name` of the open folder `parent` for listing, never
// through a link (-1 for a link, a non-folder, or a folder of another owner
// than `owner` unless kAnyOwner). Its owner's rwx are given back first when a
// command took them away (chmod 000), through the O_PATH descriptor's /proc
// entry, so the chmod applies to this very folder. `info`: its status.
int open_subfolder(int parent, const char* name, uid_t owner, struct stat& info);

// Removes everything inside the open folder `folder`. Subfolders the command
// made read-only are opened up first (owner rwx) so the removal does not stop
// half-way. Folders nested deeper than 256 levels are left.
void remove_folder_contents(int folder);

}  // namespace oms::core
