// Making folders and new files below a folder oms holds open, never by path.
// Used where a command (of this run or, under a backend that shares the
// host's temp folders, of another) could swap a folder on the way for a
// link: every step is opened O_NOFOLLOW relative to the last, and a file is
// only ever created (O_EXCL), so oms never writes through a link and never
// truncates a file it did not just make.
#pragma once
#include <string>

namespace oms::core {

// Opens (making it 0700 where missing) `relative`, a '/'-separated path of
// folders below `root_fd`; the descriptor of the last one, or -1 when any
// step is missing and cannot be made, or is a link or not a folder.
int open_folders_at(int root_fd, const std::string& relative);

// Creates `name` in `folder_fd` (0600, it must not exist yet) holding `text`.
// False when it exists, cannot be made, or the write fails.
bool write_new_file_at(int folder_fd, const std::string& name, const std::string& text);

}  // namespace oms::core
