#include "oms/core/run_context.hpp"

extern char** environ;

namespace oms::core {

namespace {

oms_strings view_of(const std::vector<std::string>& owned, std::vector<const char*>& views) {
    views.clear();
    for (auto& s : owned) views.push_back(s.c_str());
    return oms_strings{views.empty() ? nullptr : views.data(), views.size()};
}

}  // namespace

RunContext::RunContext(RunInputs inputs) : inputs_(std::move(inputs)) {
    view_.struct_size = sizeof(oms_run_context);
    view_.platform = inputs_.platform.c_str();
    view_.home = inputs_.home.c_str();
    view_.worktree = inputs_.worktree.c_str();
    view_.private_home = inputs_.private_home.c_str();
    view_.temp_dir = inputs_.temp_dir.c_str();
    view_.state_dir = inputs_.state_dir.c_str();
    view_.parent_env = view_of(inputs_.parent_env, env_);
    view_.read_only = view_of(inputs_.read_only, ro_);
    view_.read_write = view_of(inputs_.read_write, rw_);
    view_.pinned = view_of(inputs_.pinned, pinned_);
    view_.surfpool = inputs_.surfpool.empty() ? nullptr : inputs_.surfpool.c_str();
    view_.argv = view_of(inputs_.argv, argv_);
    view_.flags = inputs_.flags;
    view_.working_dir = inputs_.working_dir.empty() ? view_.worktree : inputs_.working_dir.c_str();
    view_.refusal_log = inputs_.refusal_log.empty() ? nullptr : inputs_.refusal_log.c_str();
}

const oms_run_context* RunContext::view_for_backend(uint32_t understood_run_flags) const {
    backend_view_ = view_;
    backend_view_.flags = view_.flags & understood_run_flags;
    return &backend_view_;
}

const char* current_platform() {
#if defined(__APPLE__)
    return "macos";
#else
    return "linux";
#endif
}

std::vector<std::string> current_environment() {
    std::vector<std::string> out;
    for (char** entry = environ; entry && *entry; ++entry) out.emplace_back(*entry);
    return out;
}

}  // namespace oms::core
