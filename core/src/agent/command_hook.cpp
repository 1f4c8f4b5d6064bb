// oms hook claude-code: Claude Code's PreToolUse hook. Every Bash call the
// agent makes comes back rewritten to run under `oms run`, so the command is
// confined while the agent's tool, its output and its status stay the same.
// Any other tool passes through untouched (no output, exit 0).
#include "oms/core/cli.hpp"
#include "oms/core/cli_options.hpp"
#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/shell_quote.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

namespace po = boost::program_options;

namespace oms::core {

namespace {

const char* kUsage =
    "usage: oms hook claude-code [options]\n\n"
    "Claude Code's PreToolUse hook (matcher \"Bash\"): reads the hook's JSON on stdin and, for a Bash call,\n"
    "answers with the command rewritten to run under `oms run` in the same folder (the original text\n"
    "quoted as one word, every other field kept). Other tools pass through: no output, exit 0. Input it\n"
    "cannot read ends with exit 2, which Claude Code takes as \"block this call\". See docs/agents.md.\n\n"
    "options";

struct HookOptions {
    std::string shell = "bash";
    bool ask = false;
};

// Exit 2 is Claude Code's "blocking error" for PreToolUse: the call does not
// run and the message goes to the agent. Any other failure status would let
// the original, unconfined command run, so every refusal here uses 2.
[[noreturn]] void block(const std::string& why) { throw UserError(2, "oms hook claude-code: " + why); }

nlohmann::json read_hook_input() {
    const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    nlohmann::json input = nlohmann::json::parse(text, nullptr, false);
    if (input.is_discarded() || !input.is_object()) block("stdin is not a JSON object (the PreToolUse hook's input)");
    return input;
}

std::string text_member(const nlohmann::json& object, const char* name) {
    auto it = object.find(name);
    if (it == object.end() || !it->is_string()) block(std::string("the hook's input has no text member \"") + name + "\"");
    return it->get<std::string>();
}

// The command Claude Code runs instead: oms (by absolute path: the agent's
// PATH may not hold it) runs the original text with the shell given.
std::string confined_command(const std::string& original, const HookOptions& options) {
    if (original.find('\0') != std::string::npos) block("the command holds a NUL byte, which no shell word can");
    return shell_quoted(executable_path()) + " run -- " + shell_quoted(options.shell) + " -c " + shell_quoted(original);
}

nlohmann::json hook_answer(nlohmann::json tool_input, const HookOptions& options) {
    tool_input["command"] = confined_command(text_member(tool_input, "command"), options);
    nlohmann::json specific{{"hookEventName", "PreToolUse"},
                            {"permissionDecision", options.ask ? "ask" : "allow"},
                            {"permissionDecisionReason", "runs confined by oms run"},
                            {"updatedInput", std::move(tool_input)}};
    return nlohmann::json{{"hookSpecificOutput", std::move(specific)}};
}

int hook_claude_code(const Args& args) {
    HookOptions options;
    po::options_description description(kUsage);
    description.add_options()("shell", po::value<std::string>(&options.shell),
                              "the shell that runs the agent's command inside the sandbox (default bash: Claude "
                              "Code's Bash tool writes bash; sh where there is no bash)")(
        "ask", po::bool_switch(&options.ask),
        "answer \"ask\" instead of \"allow\": Claude Code still asks you before each command (showing the "
        "rewritten one)");
    if (!parse_options(args, description)) return 0;
    const nlohmann::json input = read_hook_input();
    auto event = input.find("hook_event_name");
    if (event != input.end() && *event != "PreToolUse") return 0;  // wired to another event: not ours to change
    if (text_member(input, "tool_name") != "Bash") return 0;
    auto tool_input = input.find("tool_input");
    if (tool_input == input.end() || !tool_input->is_object()) block("a Bash call without a tool_input object");
    const std::string answer = hook_answer(*tool_input, options).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::printf("%s\n", answer.c_str());
    return 0;
}

}  // namespace

int command_hook(const Args& args) {
    if (args.empty()) throw UserError(kExitUsage, "oms hook: name the agent: oms hook claude-code (see --help)");
    if (args[0] == "claude-code") return hook_claude_code(Args(args.begin() + 1, args.end()));
    // One agent so far: its help is the command's help.
    if (args[0] == "--help" || args[0] == "-h") return hook_claude_code(args);
    throw UserError(kExitUsage, "oms hook: unknown agent '" + args[0] + "' (known: claude-code)");
}

}  // namespace oms::core
