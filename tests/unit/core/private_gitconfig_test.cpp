// The private HOME's .gitconfig: only harmless keys of the user's git config
// are copied; the reader survives malformed input.
#include "oms/core/git_config_reader.hpp"
#include "oms/core/private_gitconfig.hpp"

#include <catch2/catch.hpp>

using namespace oms::core;

namespace {

const char* const kUserConfig = R"CFG(
# the user's own file
[user]
	name = "Ada Lovelace"   ; trailing comment
	email = ada@example.org
	signingkey = ABCDEF
[init] defaultBranch = trunk
[core]
	autocrlf = input
	hooksPath = /home/ada/hooks
	sshCommand = ssh -i /home/ada/.ssh/other
	fsmonitor = /home/ada/fsmon
	editor = vim
[credential]
	helper = store
[credential "https://github.com"]
	helper = !gh auth git-credential
[url "https://ghp_TOKEN123@github.com/"]
	insteadOf = https://github.com/
[include]
	path = ~/.gitconfig.local
[includeIf "gitdir:~/work/"]
	path = ~/.gitconfig.work
[alias]
	x = !rm -rf /
[user "sub"]
	name = wrong
)CFG";

std::string kept_for(const std::vector<std::pair<std::string, std::string>>& files, std::vector<std::string>& warnings) {
    return harmless_git_config(files, "/work/repo", warnings);
}

}  // namespace

TEST_CASE("the reader: sections, subsections, quotes, escapes, comments, continuations") {
    auto parsed = parse_git_config("[a \"Sub \\\"q\\\"\"]\n  k = \"x ; y\" # c\n[b.Old]\nflag\n[c]\nv = one\\\n two\\tend  \n");
    REQUIRE_FALSE(parsed.problem);
    REQUIRE(parsed.entries.size() == 3);
    CHECK(parsed.entries[0].section == "a");
    CHECK(*parsed.entries[0].subsection == "Sub \"q\"");
    CHECK(*parsed.entries[0].value == "x ; y");
    CHECK(*parsed.entries[1].subsection == "old");
    CHECK_FALSE(parsed.entries[1].value);
    CHECK(*parsed.entries[2].value == "one two\tend");
}

TEST_CASE("the reader names the line of malformed input and returns nothing") {
    for (const char* bad : {"[user\nname = x\n", "name = x\n", "[user]\nname = \"open\n", "[user]\n1x = y\n",
                            "[user]\nname = a\\q\n", "[user]\nname x\n", "[user] junk]\n", "[\"x\"]\n",
                            "[user]\nname = end\\"}) {
        auto parsed = parse_git_config(bad);
        INFO(bad);
        CHECK(parsed.problem);
        CHECK(parsed.entries.empty());
    }
    CHECK(parse_git_config("[user]\n\n\nname = \"open\n").problem.value_or("").rfind("line 4:", 0) == 0);
}

TEST_CASE("only user.name, user.email, init.defaultBranch, core.autocrlf and safe.directory are written") {
    std::vector<std::string> warnings;
    const std::string out = kept_for({{"~/.gitconfig", kUserConfig}}, warnings);
    CHECK(warnings.empty());
    CHECK(out.find("name = \"Ada Lovelace\"") != std::string::npos);
    CHECK(out.find("email = \"ada@example.org\"") != std::string::npos);
    CHECK(out.find("defaultBranch = \"trunk\"") != std::string::npos);
    CHECK(out.find("autocrlf = \"input\"") != std::string::npos);
    CHECK(out.find("[safe]\n\tdirectory = \"/work/repo\"") != std::string::npos);
    for (const char* absent : {"helper", "credential", "ghp_TOKEN123", "insteadOf", "include", "hooksPath", "sshCommand",
                               "fsmonitor", "signingkey", "editor", "alias", "rm -rf", "wrong", "url"})
        CHECK(out.find(absent) == std::string::npos);
}

TEST_CASE("a later file wins, a malformed file is skipped with a warning, odd values are dropped") {
    std::vector<std::string> warnings;
    const std::string out = kept_for({{"xdg", "[user]\nname = First\nemail = first@x\n"},
                                      {"home", "[user]\nname = Second\n[core]\nautocrlf = yes-please\n"},
                                      {"broken", "[user]\nname = \"Third\n"}},
                                     warnings);
    CHECK(out.find("\"Second\"") != std::string::npos);
    CHECK(out.find("first@x") != std::string::npos);
    CHECK(out.find("Third") == std::string::npos);
    CHECK(out.find("autocrlf") == std::string::npos);
    REQUIRE(warnings.size() == 2);
    CHECK(warnings[0].find("home: line 4: core.autocrlf") == 0);
    CHECK(warnings[1].find("broken: line 2: an unterminated quoted value; nothing is copied from it") == 0);
}

TEST_CASE("values are re-quoted: a quote or newline in a name cannot add a key") {
    std::vector<std::string> warnings;
    const std::string out = kept_for({{"f", "[user]\nname = \"a\\\"]\\n[credential]\\nhelper = x\"\nemail = \"q\\\"\\\\\"\n"}},
                                     warnings);
    CHECK(out.find("helper") == std::string::npos);  // the newline made the name unacceptable
    CHECK(out.find("email = \"q\\\"\\\\\"") != std::string::npos);
    CHECK(warnings.size() == 1);
}
