#include "decision_oracle.hpp"

#include "scene.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>

namespace oms::backend_check {
namespace {

std::string read_all(int fd) {
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
    return text;
}

}  // namespace

bool ask_oracle(const std::string& program, const std::string& rendered_file, const std::string& folder,
                const std::vector<std::string>& queries, std::vector<std::string>& answers, std::string& error) {
    const std::string query_file = folder + "/oracle-queries.txt";
    std::string text;
    for (auto& query : queries) text += query + "\n";
    write_text(query_file, text);
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        error = "cannot make a pipe";
        return false;
    }
    pid_t child = fork();
    if (child == 0) {
        int in = open(query_file.c_str(), O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(out[1], 1) < 0) _exit(127);
        execl(program.c_str(), program.c_str(), rendered_file.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(out[1]);
    const std::string output = child > 0 ? read_all(out[0]) : "";
    close(out[0]);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        error = "the oracle " + program + " failed (exit status " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")";
        return false;
    }
    answers.clear();
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        if (line != "allow" && line != "deny") {
            error = "the oracle answered \"" + line.substr(0, 80) + "\", not allow or deny";
            return false;
        }
        answers.push_back(line);
    }
    if (answers.size() != queries.size()) {
        error = "the oracle gave " + std::to_string(answers.size()) + " answers to " + std::to_string(queries.size()) +
                " queries";
        return false;
    }
    return true;
}

}  // namespace oms::backend_check
