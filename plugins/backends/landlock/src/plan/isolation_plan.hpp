// The mount side of process isolation, planned before fork:
//  - writable_mounts: the outermost write roots. The child clones them, makes
//    the whole tree read-only (chmod, chown, utimes, xattrs fail with EROFS
//    outside them: Landlock has no right for those) and puts the clones back.
//  - private_temps: /tmp and /var/tmp (and the folders of the runs' private
//    folders, when neither covers them), each covered by a fresh tmpfs that dies
//    with the run, so nothing a run leaves there reaches a later run, and a
//    rename out of a write root into them crosses file systems (a copy,
//    which reads a masked keypair as the empty file it is).
//  - temp_keeps: what the policy names below a private temp (worktree, HOME,
//    read and write roots...), bound back at the same path with the rights
//    it had; everything else of the host's temp folders is gone.
//  - temp_fresh: the run's own TMPDIR when it would be a keep of its own:
//    made as an empty folder in the private temp instead (the host's is
//    empty, oms just made it), so temporary files live in memory as the
//    rest of the private temp does, not on the host's disk.
//  - scratch_trees: WRITE_SCRATCH_TREE paths, an overlay whose upper layer
//    lives in the private /tmp; scratch_read_only when no overlay is possible.
#pragma once
#include "sandbox_plan.hpp"

namespace oms::landlock {

// Fills the fields above and drops the rules and mounts planned for host
// entries of the temp folders that the private ones no longer show.
void plan_isolation(Plan& plan, const oms::sdk::Context& context, const oms::sdk::Policy& policy);

// The folders the runs' private folders lie in (oms/run_folder.hpp: this
// user's and the other users' beside it), which the child covers with a
// private temp each unless one covers them already; empty when the
// context's folders are not laid out that way. The keypair search leaves
// them out: nothing in them is seen. Throws when the worktree or a --rw
// folder is one of them.
std::vector<std::string> run_folders_to_cover(const oms::sdk::Context& context);

// True when this kernel lists the overlay file system.
bool overlay_available();

}  // namespace oms::landlock
