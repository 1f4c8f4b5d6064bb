// The paths bound from below the worktree, checked once more inside the
// container: oms passes the device and inode it found on the host
// (--expect=DEV:INO:PATH) and the runner refuses to go on when the
// container shows anything else there (a link swapped in between oms's check
// and the daemon's mount would mount the link's target).
#pragma once

namespace oms::docker::runner {

// Consumes the --expect=... arguments from argv[argi] on; true when every
// one holds (PATH, not followed, has that device and inode); otherwise
// names the first that does not on stderr.
bool expectations_hold(int& argi, int argc, char** argv);

}  // namespace oms::docker::runner
