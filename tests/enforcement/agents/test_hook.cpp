// oms hook claude-code: the PreToolUse JSON in, the documented answer out;
// the rewritten command, run by bash in the worktree as Claude Code would,
// does what the original does, confined.
#include "../landlock/test_support.hpp"
#include "agent_world.hpp"

#include <nlohmann/json.hpp>

using namespace oms::test;
using nlohmann::json;

namespace {

json pre_tool_use(const World& world, const std::string& tool, const json& tool_input) {
    return {{"session_id", "abc123"},
            {"transcript_path", world.home + "/.claude/projects/x/abc123.jsonl"},
            {"cwd", world.work},
            {"permission_mode", "default"},
            {"hook_event_name", "PreToolUse"},
            {"tool_name", tool},
            {"tool_input", tool_input}};
}

// The hook's answer for a Bash call of `command`.
json answer_for(const World& world, const std::string& command) {
    const ProcessResult r =
        run_hook(world, pre_tool_use(world, "Bash", {{"command", command}, {"description", "Lists files"}}).dump());
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(r.err.empty());
    return json::parse(r.out);
}

// Texts a shell could misread: quotes of both kinds, substitutions, a
// newline, backslashes, a leading dash, a glob, a comment.
const std::vector<std::string> kHostileCommands = {
    "printf '%s\\n' \"it's\" 'say \"hi\"'",
    "echo \"$(echo substituted)\" `echo ticked` '$(not run)' '`not run`'",
    "printf 'line1\\n'\necho line2",
    "echo 'a\\b' \"c\\\\d\" e\\\\f",
    "X='\\''; echo \"[$X]\"",
    "-x() { echo dash; }; echo $((1 + 2)) # a comment",
    "echo *.none 'tab\there' ~ \"$HOME\" | wc -c",
};

}  // namespace

TEST_CASE("the hook answers a Bash call with the command under oms run", "[agents][hook]") {
    World w;
    for (const std::string& command : kHostileCommands) {
        const json answer = answer_for(w, command);
        INFO(command << "\n" << answer.dump(2));
        const json& specific = answer.at("hookSpecificOutput");
        CHECK(specific.at("hookEventName") == "PreToolUse");
        CHECK(specific.at("permissionDecision") == "allow");
        CHECK(specific.at("updatedInput").at("description") == "Lists files");  // kept
        const std::string rewritten = specific.at("updatedInput").at("command");
        CHECK(rewritten.rfind("'" + oms_binary() + "' run -- 'bash' -c '", 0) == 0);  // oms by absolute path
    }
}

TEST_CASE("the rewritten command does what the original does", "[agents][hook]") {
    require_landlock();
    World w;
    for (const std::string& command : kHostileCommands) {
        const std::string rewritten = answer_for(w, command)["hookSpecificOutput"]["updatedInput"]["command"];
        const ProcessResult outside = run_in_world(w, {"/bin/bash", "-c", command});
        const ProcessResult inside = run_in_world(w, {"/bin/bash", "-c", rewritten});
        INFO(command << "\nrewritten: " << rewritten << "\ninside: " << inside.out << inside.err);
        CHECK(inside.exit_code == outside.exit_code);
        // HOME differs inside (a private one): the one command that prints it is compared by length only.
        if (command.find("$HOME") == std::string::npos) CHECK(inside.out == outside.out);
    }
}

TEST_CASE("the rewritten command runs confined: HOME's secrets hidden, the worktree writable", "[agents][hook]") {
    require_landlock();
    World w;
    const std::string command = "cat " + w.home + "/.ssh/id_rsa " + w.home + "/.aws/credentials wallet-keypair.json;"
                                " echo written-by-hook > hook-output.txt; cat README; exit 5";
    // Outside, the same text reads the secrets: the control that they are there.
    const ProcessResult outside = run_in_world(w, {"/bin/bash", "-c", "cat " + w.home + "/.ssh/id_rsa"});
    REQUIRE(outside.out.find(kSshKey) != std::string::npos);

    const std::string rewritten = answer_for(w, command)["hookSpecificOutput"]["updatedInput"]["command"];
    const ProcessResult r = run_in_world(w, {"/bin/bash", "-c", rewritten});
    INFO(rewritten << "\n" << r.out << r.err);
    CHECK(r.exit_code == 5);  // the command's own status comes back
    for (const char* secret : {kSshKey, kAwsKey, kKeypair}) {
        CHECK(r.out.find(secret) == std::string::npos);
        CHECK(r.err.find(secret) == std::string::npos);
    }
    CHECK(r.out.find("WORKTREE-README") != std::string::npos);
    CHECK(read_file(w.work + "/hook-output.txt") == "written-by-hook\n");
}

TEST_CASE("the hook leaves other tools and events alone", "[agents][hook]") {
    World w;
    for (const json& input :
         {pre_tool_use(w, "Read", {{"file_path", w.home + "/.ssh/id_rsa"}}),
          pre_tool_use(w, "Edit", {{"file_path", "x"}, {"old_string", "a"}, {"new_string", "b"}}),
          [&] {
              json post = pre_tool_use(w, "Bash", {{"command", "ls"}});
              post["hook_event_name"] = "PostToolUse";
              return post;
          }()}) {
        const ProcessResult r = run_hook(w, input.dump());
        INFO(input.dump() << "\n" << r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.empty());
        CHECK(r.err.empty());
    }
}

TEST_CASE("input the hook cannot read blocks the call (exit 2)", "[agents][hook]") {
    World w;
    for (const std::string& input :
         {std::string("not json"), std::string("[1,2]"), std::string(""),
          pre_tool_use(w, "Bash", {{"description", "no command"}}).dump(),
          pre_tool_use(w, "Bash", {{"command", 42}}).dump(), json{{"hook_event_name", "PreToolUse"}}.dump()}) {
        const ProcessResult r = run_hook(w, input);
        INFO(input << "\n" << r.out << r.err);
        CHECK(r.exit_code == 2);  // Claude Code: a blocking error, the command does not run
        CHECK(r.out.empty());
        CHECK(r.err.rfind("oms hook claude-code: ", 0) == 0);
    }
}

TEST_CASE("the hook's --ask and --shell", "[agents][hook]") {
    World w;
    const ProcessResult r =
        run_hook(w, pre_tool_use(w, "Bash", {{"command", "echo hi"}, {"timeout", 5000}}).dump(), {"--ask", "--shell", "sh"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const json answer = json::parse(r.out);
    CHECK(answer["hookSpecificOutput"]["permissionDecision"] == "ask");
    CHECK(answer["hookSpecificOutput"]["updatedInput"]["timeout"] == 5000);  // other fields kept
    const std::string rewritten = answer["hookSpecificOutput"]["updatedInput"]["command"];
    CHECK(rewritten == "'" + oms_binary() + "' run -- 'sh' -c 'echo hi'");
}

TEST_CASE("pinned project settings of Claude Code stay as they are (docs/agents.md)", "[agents][hook]") {
    require_landlock();
    World w;
    write_file(w.work + "/.claude/settings.json", "{}");
    add_user_config(w, "[sandbox]\npinned = [\".claude/settings.json\"]");
    const std::string rewritten =
        answer_for(w, "echo '{\"disableAllHooks\": true}' > .claude/settings.json; mv .claude .claude-moved; "
                      "echo positive > control.txt")["hookSpecificOutput"]["updatedInput"]["command"];
    const ProcessResult r = run_in_world(w, {"/bin/bash", "-c", rewritten});
    INFO(r.out << r.err);
    CHECK(read_file(w.work + "/.claude/settings.json") == "{}");
    CHECK(read_file(w.work + "/control.txt") == "positive\n");  // the worktree itself stays writable
}
