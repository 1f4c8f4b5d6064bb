// The enforcement probes every rung of the ladder runs (the full mode's, in
// one command) and the host-side evidence they leave, shared by the tests
// that make each environment on this machine and the one in a container.
#pragma once
#include "landlock_sandbox.hpp"
#include "process.hpp"

#include <string>

namespace oms::test {

// The probe script, {home}/{work}/... not yet expanded; it needs the folder
// {work}/src made before the run.
std::string probes();

// The refusals held: no secret in the output, nothing written outside the
// write roots, .git and the pinned file unchanged, nothing in the host's /tmp.
void check_refusals_held(const World& w, const ProcessResult& r);

// The positive controls: the worktree read, written in place and in a
// folder of it, the run's TMPDIR written; the child it left running ended
// with the run (checked 3 s later).
void check_confined_run_worked(const World& w, const ProcessResult& r);

}  // namespace oms::test
