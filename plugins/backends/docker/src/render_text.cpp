#include "render_text.hpp"

#include "one_shot_lifeline.hpp"

#include "warm_identity.hpp"

namespace oms::docker {

namespace {

bool plain(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!(isalnum(static_cast<unsigned char>(c)) || std::string("-_./=:,@%+").find(c) != std::string::npos))
            return false;
    return true;
}

std::string quoted(const std::string& s) {
    if (plain(s)) return s;
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

std::string shell_join(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& a : argv) out += (out.empty() ? "" : " ") + quoted(a);
    return out;
}

std::vector<std::string> render_lines(const Settings& s, const ContainerPlan& plan, const RunInputs& in, Mode mode,
                                      const std::string& runner_path) {
    std::vector<std::string> lines;
    std::string names;
    for (const std::string& e : env_flags(plan)) names += (names.empty() ? "" : " ") + e.substr(6);
    if (mode == Mode::OneShot) {
        lines.push_back("# one container per command; variables passed by name: " + names);
        lines.push_back(shell_join(one_shot_argv(s, plan, "oms-run-<id>", in.argv, in.interactive, runner_path,
                                                 in.state_dir + "/docker/oms-run-<id>.relay",
                                                 one_shot_labels(in.worktree, "oms-run-<id>"))));
    } else {
        std::string hash = config_hash(plan, runner_path);
        std::string name = warm_name(in.worktree, hash);
        lines.push_back("# warm container of this task (created once, removed by `oms task end`):");
        lines.push_back(shell_join(warm_create_argv(s, plan, name, warm_labels(in.worktree, hash), runner_path,
                                                    runner_socket_dir(in.state_dir, name))));
        lines.push_back("# each command: started by the container's runner as " + plan.user + " in " + in.working_dir +
                        ", variables: " + names);
        lines.push_back(shell_join(in.argv));
    }
    for (const std::string& note : plan.notes) lines.push_back("# inexact: " + note);
    return lines;
}

}  // namespace oms::docker
