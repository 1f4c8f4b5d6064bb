// A tools/call's arguments, checked, as the oms command line that serves it.
#include "oms/core/json_rpc.hpp"
#include "oms/core/mcp_tools.hpp"

#include <cmath>
#include <set>

namespace oms::core {

namespace {

using nlohmann::json;

// Text that becomes one word of a command line: execve ends a word at a NUL.
std::string checked_word(const json& value, const std::string& name) {
    if (!value.is_string()) throw ToolArgumentError("argument '" + name + "' must be a string");
    std::string text = value.get<std::string>();
    if (text.find('\0') != std::string::npos) throw ToolArgumentError("argument '" + name + "' holds a NUL byte");
    return text;
}

void check_names(const json& arguments, const std::set<std::string>& known) {
    if (!arguments.is_object()) throw ToolArgumentError("the arguments must be an object");
    for (auto& item : arguments.items())
        if (!known.count(item.key())) throw ToolArgumentError("unknown argument '" + item.key() + "'");
}

std::optional<std::string> optional_word(const json& arguments, const char* name) {
    auto it = arguments.find(name);
    if (it == arguments.end()) return std::nullopt;
    return checked_word(*it, name);
}

std::string required_word(const json& arguments, const char* name) {
    auto word = optional_word(arguments, name);
    if (!word) throw ToolArgumentError(std::string("argument '") + name + "' is missing");
    return *word;
}

std::vector<std::string> word_list(const json& arguments, const char* name) {
    auto it = arguments.find(name);
    if (it == arguments.end()) return {};
    if (!it->is_array()) throw ToolArgumentError(std::string("argument '") + name + "' must be an array of strings");
    std::vector<std::string> words;
    for (const json& item : *it) words.push_back(checked_word(item, std::string(name) + "[]"));
    return words;
}

std::optional<std::chrono::milliseconds> timeout(const json& arguments) {
    auto it = arguments.find("timeout_s");
    if (it == arguments.end()) return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0)
        throw ToolArgumentError("argument 'timeout_s' must be a number of seconds above 0");
    const double seconds = std::min(it->get<double>(), 1e9);  // far beyond any run, and safe to convert
    return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
}

std::vector<std::string> oms_words(const ToolContext& context, const char* command) {
    return {context.oms_binary, command, "--worktree", context.worktree};
}

ToolCall run_call(const json& arguments, const ToolContext& context) {
    check_names(arguments, {"command", "cwd", "timeout_s", "env"});
    const std::string command = required_word(arguments, "command");
    ToolCall call{ToolKind::run, {oms_words(context, "run"), context.worktree, timeout(arguments)}};
    std::vector<std::string>& argv = call.child.argv;
    if (auto cwd = optional_word(arguments, "cwd")) {
        // Relative to the worktree; oms run refuses a folder outside it.
        argv.insert(argv.end(), {"--cwd", !cwd->empty() && (*cwd)[0] == '/' ? *cwd : context.worktree + "/" + *cwd});
    }
    for (const std::string& entry : word_list(arguments, "env")) argv.insert(argv.end(), {"--env", entry});
    argv.insert(argv.end(), {"--", "sh", "-c", command});
    return call;
}

ToolCall explain_call(const json& arguments, const ToolContext& context) {
    check_names(arguments, {"access", "targets"});
    const std::string access = required_word(arguments, "access");
    static const std::set<std::string> kAccesses{"read", "write", "exec", "connect", "listen", "env"};
    if (!kAccesses.count(access))
        throw ToolArgumentError("argument 'access' must be read, write, exec, connect, listen or env");
    const std::vector<std::string> targets = word_list(arguments, "targets");
    if (targets.empty()) throw ToolArgumentError("argument 'targets' must name at least one target");
    ToolCall call{ToolKind::explain, {oms_words(context, "explain"), context.worktree, std::nullopt}};
    call.child.argv.insert(call.child.argv.end(), {"--", access});
    call.child.argv.insert(call.child.argv.end(), targets.begin(), targets.end());
    return call;
}

ToolCall policy_call(const json& arguments, const ToolContext& context) {
    check_names(arguments, {"command"});
    ToolCall call{ToolKind::policy, {oms_words(context, "policy"), context.worktree, std::nullopt}};
    if (auto command = optional_word(arguments, "command"))
        call.child.argv.insert(call.child.argv.end(), {"--", "sh", "-c", *command});
    return call;
}

}  // namespace

ToolCall tool_call(const std::string& name, const json& arguments, const ToolContext& context) {
    if (name == "run") return run_call(arguments, context);
    if (name == "explain") return explain_call(arguments, context);
    if (name == "policy") return policy_call(arguments, context);
    throw rpc::Error(rpc::kInvalidParams, "unknown tool '" + name + "' (run, explain, policy)");
}

}  // namespace oms::core
