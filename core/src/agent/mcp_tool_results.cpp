// A finished call as a CallToolResult: text for the model to read and, for
// run, the same facts as structuredContent.
#include "oms/core/mcp_tools.hpp"

namespace oms::core {

namespace {

using nlohmann::json;

struct SplitStderr {
    std::string command_text;               // the command's own lines
    std::vector<std::string> oms_messages;  // oms's lines, which start with "oms: "
};

// The command and oms share the stderr of `oms run`: oms's lines are told
// apart by their prefix (a command that prints "oms: " lines of its own has
// them counted as oms's).
SplitStderr split_stderr(const std::string& text) {
    SplitStderr split;
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        const size_t next = end == std::string::npos ? text.size() : end + 1;
        if (end == std::string::npos) end = text.size();
        if (text.compare(start, 5, "oms: ") == 0)
            split.oms_messages.push_back(text.substr(start, end - start));
        else
            split.command_text.append(text, start, next - start);
        start = next;
    }
    return split;
}

// "name:\n<text>" with the text ending in a newline; nothing for no text.
std::string section(const char* name, const std::string& text) {
    if (text.empty()) return "";
    return std::string(name) + ":\n" + text + (text.back() == '\n' ? "" : "\n");
}

std::string status_line(const ChildResult& result) {
    std::string line = "exit status " + std::to_string(result.exit_code);
    if (result.timed_out) line += " (stopped: its timeout passed)";
    return line + "\n";
}

json text_content(const std::string& text) { return json::array({{{"type", "text"}, {"text", text}}}); }

json run_result(const ChildResult& result) {
    const SplitStderr err = split_stderr(result.err.text());
    std::string oms_lines;
    for (const std::string& line : err.oms_messages) oms_lines += line + "\n";
    const std::string out = result.out.text();
    const json structured{{"exit_code", result.exit_code},
                          {"stdout", out},
                          {"stderr", err.command_text},
                          {"stdout_truncated", result.out.truncated()},
                          {"stderr_truncated", result.err.truncated()},
                          {"oms_messages", err.oms_messages},
                          {"timed_out", result.timed_out}};
    const std::string text =
        section("stdout", out) + section("stderr", err.command_text) + section("oms", oms_lines) + status_line(result);
    return {{"content", text_content(text)},
            {"structuredContent", structured},
            {"isError", result.exit_code != 0 || result.timed_out}};
}

// explain and policy: what the command printed, as it printed it.
json report_result(const ChildResult& result) {
    std::string text = result.out.text() + result.err.text();
    if (result.exit_code != 0) text += status_line(result);
    return {{"content", text_content(text)}, {"isError", result.exit_code != 0}};
}

}  // namespace

json tool_result(ToolKind kind, const ChildResult& result) {
    return kind == ToolKind::run ? run_result(result) : report_result(result);
}

json argument_error_result(const std::string& message) {
    return {{"content", text_content("oms mcp: " + message + "\n")}, {"isError", true}};
}

}  // namespace oms::core
