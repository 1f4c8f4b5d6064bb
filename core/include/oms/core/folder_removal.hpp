// Removing a folder tree that a sandboxed command could write to while we
// remove it. Every step is relative to a descriptor opened without following
// symbolic links, so swapping a folder for a link (the command can write
// /tmp) never makes oms change or delete anything outside the tree.
#pragma once

namespace oms::core {

// Removes everything inside the open folder `folder`. Subfolders the command
// made read-only are opened up first (owner rwx) so the removal does not stop
// half-way. Folders nested deeper than 256 levels are left.
void remove_folder_contents(int folder);

}  // namespace oms::core
