#include "oms/core/hidden_tool.hpp"

#include "oms/core/protected_folders.hpp"
#include "oms/core/trusted_surfpool.hpp"

#include <oms/path.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace oms::core {

namespace {

std::optional<std::string> resolved(const std::string& path) {
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real) return std::nullopt;
    std::string out(real);
    std::free(real);
    return out;
}

// A rule of `kind` whose folder or file holds `path` (both resolved).
bool covered_by(const Policy& policy, oms_rule_kind kind, const std::string& path) {
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == kind && sdk::path::is_inside(path, resolved(rule.value).value_or(rule.value))) return true;
    return false;
}

// <root>/bin/<program> gives <root>; otherwise the program's folder.
std::string install_of(const std::string& program) {
    const std::filesystem::path folder = std::filesystem::path(program).parent_path();
    return folder.filename() == "bin" ? folder.parent_path().string() : folder.string();
}

}  // namespace

std::string hidden_tool_note(const std::string& argv0, const Policy& policy, const std::string& home,
                             const std::string& working_dir) {
    const auto found = resolve_command(argv0, path_of(policy.env), working_dir);
    const auto program = found ? resolved(*found) : std::nullopt;
    const auto real_home = resolved(home);
    if (!program || !real_home || !sdk::path::is_inside(*program, *real_home)) return "";
    if (covered_by(policy, OMS_RULE_READ_ALLOW_TREE, *program) || covered_by(policy, OMS_RULE_READ_DENY, *program))
        return "";
    // The name as given, and where it led when that differs (a name found on PATH, a link).
    const std::string subject = argv0 == *program ? *program : argv0 + " (" + *program + ")";
    std::string folder = install_of(*program);
    if (folder == *real_home) folder = std::filesystem::path(*program).parent_path().string();
    if (folder == *real_home)
        return subject + " lies directly in HOME, which is never lent to commands (move it into a folder of its own)";
    return subject + " lies under HOME outside the folders lent to commands; [plugin.toolchain-roots] extra = [\"" +
           folder + "\"] (or --ro " + folder + ") lends " + folder + " read-only";
}

}  // namespace oms::core
