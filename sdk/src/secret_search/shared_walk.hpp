// The keypair walk of one folder tree on two threads. Folders wait in a
// shared list as paths relative to the root, each opened with openat2 and
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: no component may be a link, so a
// tree changed under the walk cannot lead it outside the root, and only one
// descriptor per thread is open at a time. The second thread starts only
// once the tree has proved large (a few dozen folders read), so a small
// worktree never pays for it. The result is the one find_secret_files gives.
#pragma once
#include <oms/keypair_walk.hpp>

#include <set>
#include <string>

namespace oms::sdk {

// Adds what it finds under `root` to `found`, reading folders on this thread
// through `buffer` (kScanBufferSize bytes, 8-aligned). False (and nothing
// added) when openat2 is unavailable: the caller then walks the plain way.
// A folder it cannot read also gives false: the plain walk then restores the
// owner's rights or fails the run (walk_open.hpp), in one place.
bool walk_shared(const ScanRequest& request, const std::string& root, ScanFindings& found, char* buffer);

}  // namespace oms::sdk
