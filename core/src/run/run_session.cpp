#include "oms/core/run_session.hpp"

#include "oms/core/repository_top.hpp"
#include "oms/core/worktree_check.hpp"
#include "oms/core/worktree_default.hpp"

#include <cstdio>

namespace oms::core {

namespace {

bool reads_working_dir(const PluginRecord& backend) { return backend.abi_major > 1 || backend.abi_minor >= 1; }

RunSession open_on(const RunOptions& options) {
    RunSession opened;
    opened.session = std::make_unique<Session>(options.worktree, BackendLoading::on_demand);
    refuse_changed_worktree(options.worktree, opened.session->paths().worktree);
    opened.backend =
        choose_backend(opened.session->registry(), opened.session->config(), options.sandbox, OMS_REPORT_FOR_HOST);
    return opened;
}

}  // namespace

RunSession open_run_session(RunOptions& options) {
    RunSession opened = open_on(options);
    const bool widened = !options.working_dir.empty() && options.working_dir != opened.session->paths().worktree;
    if (widened && !reads_working_dir(*opened.backend.record)) {
        const std::string backend = opened.backend.record->id;
        options.worktree = options.working_dir;
        opened = open_on(options);
        std::fprintf(stderr, "oms: the backend '%s' was built for plugin ABI 1.0 and starts every command in its worktree\n",
                     backend.c_str());
        if (auto note = subfolder_note(options.worktree)) std::fprintf(stderr, "%s\n", note->c_str());
        return opened;
    }
    const std::string& worktree = opened.session->paths().worktree;
    // The line explains a worktree oms chose; one given with --worktree needs none.
    if (options.quiet || !options.worktree_defaulted) return opened;
    if (auto line = worktree_line(WorktreeChoice{worktree, options.working_dir.empty() ? worktree : options.working_dir}))
        std::fprintf(stderr, "%s\n", line->c_str());
    return opened;
}

}  // namespace oms::core
