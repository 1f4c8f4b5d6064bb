#include "oms/core/command_shape.hpp"

#include <set>
#include <sstream>

namespace oms::core {

namespace {

std::string base_name(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_shell(const std::string& name) {
    static const std::set<std::string> shells{"sh", "bash", "dash", "zsh", "ksh"};
    return shells.count(base_name(name)) > 0;
}

// The script of `sh -c SCRIPT ...` (options such as -e or -l may come first).
const std::string* shell_script(const std::vector<std::string>& argv) {
    if (argv.empty() || !is_shell(argv[0])) return nullptr;
    for (size_t i = 1; i + 1 < argv.size(); ++i) {
        const std::string& word = argv[i];
        if (word.empty() || word[0] != '-') return nullptr;
        if (word.find('c') != std::string::npos) return &argv[i + 1];
    }
    return nullptr;
}

std::vector<std::string> words_of(const std::string& text) {
    std::vector<std::string> words;
    std::string word;
    for (char c : text) {
        const bool separator = c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
                               c == ')' || c == '\'' || c == '"';
        if (!separator) {
            word += c;
            continue;
        }
        if (!word.empty()) words.push_back(word);
        word.clear();
        if (c == ';' || c == '&' || c == '|' || c == '\n') words.push_back(";");  // a command ends
    }
    if (!word.empty()) words.push_back(word);
    return words;
}

bool answers_with_one(const std::string& program) {
    static const std::set<std::string> tools{"grep", "egrep", "fgrep", "rg", "ag", "git-grep", "diff", "cmp",
                                             "test", "[",    "false", "comm"};
    return tools.count(base_name(program)) > 0;
}

// git's options that take a value as the next word.
bool takes_a_value(const std::string& option) {
    return option == "-C" || option == "-c" || option == "--git-dir" || option == "--work-tree";
}

bool writes_the_repository(const std::string& subcommand) {
    static const std::set<std::string> writers{
        "add",  "am",     "apply", "branch", "checkout", "cherry-pick", "clean", "commit", "fetch", "gc",
        "merge", "mv",    "pull",  "rebase", "reset",    "restore",     "revert", "rm",    "stash", "switch",
        "tag",   "update-index", "update-ref", "worktree", "notes"};
    return writers.count(subcommand) > 0;
}

// A simple command `git [options] SUBCOMMAND ...` whose subcommand writes.
bool is_git_write(const std::vector<std::string>& words) {
    if (words.empty() || base_name(words[0]) != "git") return false;
    size_t i = 1;
    while (i < words.size() && !words[i].empty() && words[i][0] == '-') i += takes_a_value(words[i]) ? 2 : 1;
    return i < words.size() && writes_the_repository(words[i]);
}

// The simple commands of a script, each as its words.
std::vector<std::vector<std::string>> simple_commands(const std::string& script) {
    std::vector<std::vector<std::string>> commands(1);
    for (const std::string& word : words_of(script)) {
        if (word == ";") commands.emplace_back();
        else commands.back().push_back(word);
    }
    return commands;
}

// The words of the last simple command of a script.
std::vector<std::string> last_command(const std::string& script) {
    std::vector<std::vector<std::string>> commands = simple_commands(script);
    while (!commands.empty() && commands.back().empty()) commands.pop_back();
    return commands.empty() ? std::vector<std::string>{} : commands.back();
}

}  // namespace

bool status_is_an_answer(const std::vector<std::string>& argv, int exit_code) {
    if (exit_code != 1 || argv.empty()) return false;
    if (const std::string* script = shell_script(argv)) {
        const std::vector<std::string> last = last_command(*script);
        return !last.empty() && answers_with_one(last[0]);
    }
    return answers_with_one(argv[0]);
}

bool runs_a_git_write(const std::vector<std::string>& argv) {
    const std::string* script = shell_script(argv);
    if (!script) return is_git_write(argv);
    for (const auto& command : simple_commands(*script))
        if (is_git_write(command)) return true;
    return false;
}

}  // namespace oms::core
