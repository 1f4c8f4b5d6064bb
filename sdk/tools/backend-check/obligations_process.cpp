// Obligations every backend has, confining or not: the environment, exit
// statuses, a missing command, signals, descriptors and stdio.
#include "obligations.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

namespace oms::backend_check {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (auto& item : items) text += (text.empty() ? "" : ", ") + item;
    return text;
}

// Variable names (values stay out of logs), the checker's planted one first,
// at most ten.
std::string names_only(const std::vector<std::string>& entries) {
    std::vector<std::string> names;
    for (auto& entry : entries) {
        std::string name = entry.substr(0, entry.find('='));
        if (name == "OMS_CHECK_PARENT_SECRET")
            names.insert(names.begin(), name + " (set in the caller only)");
        else
            names.push_back(name);
    }
    size_t more = names.size() > 10 ? names.size() - 10 : 0;
    names.resize(names.size() - more);
    return joined(names) + (more ? " and " + std::to_string(more) + " more" : "");
}

bool wait_for_file(const std::string& path, int milliseconds) {
    for (int waited = 0; waited < milliseconds && !path_exists(path); waited += 20)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return path_exists(path);
}

// The values a backend declares it gives the run-folder variables inside the
// sandbox (a DETAIL line "sandbox-env: HOME=/x; TMPDIR=/y"): a container that
// keeps one HOME per task cannot use the host's per-run path. Only HOME and
// TMPDIR may be declared; the names stay exactly the policy's.
std::vector<std::string> declared_sandbox_env(const Bench& bench, std::string& problem) {
    std::vector<std::string> declared;
    for (auto& line : bench.details) {
        if (line.rfind("sandbox-env: ", 0) != 0) continue;
        std::istringstream items(line.substr(13));
        for (std::string item; std::getline(items, item, ';');) {
            item.erase(0, item.find_first_not_of(' '));
            std::string name = item.substr(0, item.find('='));
            if (item.find('=') == std::string::npos || (name != "HOME" && name != "TMPDIR"))
                problem = "the probe's \"sandbox-env:\" line may only declare HOME=... and TMPDIR=..., not \"" + item + "\"";
            else
                declared.push_back(item);
        }
    }
    return declared;
}

// The policy's environment with the declared in-sandbox values in place.
std::vector<std::string> expected_env(const std::vector<std::string>& policy_env, const std::vector<std::string>& declared) {
    std::vector<std::string> wanted;
    for (auto& entry : policy_env) {
        std::string name = entry.substr(0, entry.find('=') + 1);
        auto replaced = std::find_if(declared.begin(), declared.end(),
                                     [&name](const std::string& d) { return d.rfind(name, 0) == 0; });
        wanted.push_back(replaced == declared.end() ? entry : *replaced);
    }
    return wanted;
}

// Whether a name is in both lists: the variable is there with another value.
bool changed_value(const std::vector<std::string>& extra, const std::vector<std::string>& missing) {
    for (auto& e : extra)
        for (auto& m : missing)
            if (e.substr(0, e.find('=')) == m.substr(0, m.find('='))) return true;
    return false;
}

Result check_environment(Bench& bench) {
    const char* name = "environment";
    std::string problem;
    const auto declared = declared_sandbox_env(bench, problem);
    if (!problem.empty()) return {name, Verdict::fail, problem};
    // The checker's own environment has a variable the policy does not pass.
    setenv("OMS_CHECK_PARENT_SECRET", "parent-only", 1);
    Outcome outcome = bench.run({bench.helper, "env"});
    unsetenv("OMS_CHECK_PARENT_SECRET");
    if (!outcome.spawned || outcome.status != 0) return {name, Verdict::fail, "env did not run: " + describe(outcome)};
    auto got = lines_of(outcome.out);
    auto wanted = expected_env(bench.scene.env, declared);
    std::sort(got.begin(), got.end());
    std::sort(wanted.begin(), wanted.end());
    std::vector<std::string> extra, missing;
    std::set_difference(got.begin(), got.end(), wanted.begin(), wanted.end(), std::back_inserter(extra));
    std::set_difference(wanted.begin(), wanted.end(), got.begin(), got.end(), std::back_inserter(missing));
    if (!extra.empty() || !missing.empty())
        return {name, Verdict::fail,
                "the command's environment is not exactly the policy's:" +
                    (extra.empty() ? "" : " added " + names_only(extra)) +
                    (missing.empty() ? "" : " missing " + names_only(missing)) +
                    (changed_value(extra, missing) ? " (a name both added and missing has another value than the policy's)" : "")};
    std::string note;
    for (auto& d : declared) note += (note.empty() ? " (in-sandbox, as the probe declares: " : ", ") + d;
    return {name, Verdict::pass, "exactly the policy's " + std::to_string(wanted.size()) + " variables" +
                                     (note.empty() ? "" : note + ")")};
}

Result check_exit_statuses(Bench& bench) {
    const char* name = "exit-status";
    struct Case {
        const char* script;
        int wanted;
    } cases[] = {{"exit 7", 7}, {"exit 0", 0}, {"kill -TERM $$", 128 + SIGTERM}, {"kill -KILL $$", 128 + SIGKILL}};
    for (auto& c : cases) {
        Outcome outcome = bench.shell(c.script);
        if (!outcome.spawned || outcome.status != c.wanted)
            return {name, Verdict::fail,
                    std::string("`") + c.script + "` should end with " + std::to_string(c.wanted) + ", " + describe(outcome)};
    }
    return {name, Verdict::pass, "7, 0, 128+15 and 128+9 come back as the command ended"};
}

Result check_command_not_found(Bench& bench) {
    const char* name = "command-not-found";
    Outcome outcome = bench.run({"oms-check-no-such-command"});
    if (!outcome.spawned)
        return {name, Verdict::pass, "spawn refused it (oms exits 69 with the reason): " + outcome.spawn_error};
    if (outcome.status == 127) return {name, Verdict::pass, "the command ended with 127"};
    return {name, Verdict::fail, "a missing command must fail spawn or end with 127, " + describe(outcome)};
}

Result check_signal_forwarding(Bench& bench) {
    const char* name = "signal-forwarding";
    // The real command traps TERM and records it in the worktree, so the
    // trap running is seen on the host; a launcher in between must not die
    // first and take the command with it.
    const std::string ready = bench.scene.worktree + "/signal-ready", trapped = bench.scene.worktree + "/signal-trapped";
    CommandRun command;
    command.argv = {"/bin/sh", "-c",
                    "trap 'echo trapped > \"" + trapped + "\"; exit 42' TERM; echo up > \"" + ready +
                        "\"; while :; do sleep 0.05; done"};
    bool was_ready = false;
    command.while_running = [&](const std::function<void(int)>& send) {
        was_ready = wait_for_file(ready, 10000);
        send(SIGTERM);
    };
    Outcome outcome = run_command(bench.backend, bench.scene, command);
    if (!was_ready) return {name, Verdict::fail, "the command never started (no ready file in the worktree): " + describe(outcome)};
    if (!path_exists(trapped) || outcome.status != 42)
        return {name, Verdict::fail,
                "SIGTERM did not reach the command's trap (trap ran: " + std::string(path_exists(trapped) ? "yes" : "no") +
                    "; wanted status 42), " + describe(outcome)};
    // Default disposition: the signal ends the command, 128+15.
    const std::string ready2 = bench.scene.worktree + "/signal-ready-2";
    command.argv = {"/bin/sh", "-c", "echo up > \"" + ready2 + "\"; exec sleep 30"};
    command.while_running = [&](const std::function<void(int)>& send) {
        was_ready = wait_for_file(ready2, 10000);
        send(SIGTERM);
    };
    outcome = run_command(bench.backend, bench.scene, command);
    if (!was_ready || outcome.status != 128 + SIGTERM)
        return {name, Verdict::fail, "SIGTERM to `sleep` (default disposition) should end it with 143, " + describe(outcome)};
    return {name, Verdict::pass, "SIGTERM ran the command's trap (status 42) and ended a plain command with 143"};
}

Result check_descriptors(Bench& bench) {
    const char* name = "descriptors";
    // Two descriptors open in the checker without close-on-exec, on a secret
    // file: one a single digit (reachable from sh) and one high.
    int low = 9;
    while (low > 2 && fcntl(low, F_GETFD) != -1) --low;
    int secret = open(bench.scene.home_secret.c_str(), O_RDONLY);
    if (secret < 0 || low <= 2 || fcntl(100, F_GETFD) != -1)
        return {name, Verdict::fail, "the checker cannot place its bait descriptors"};
    dup2(secret, low);
    dup2(secret, 100);
    close(secret);
    const std::string digit = std::to_string(low);
    Outcome outcome = bench.shell(
        "cat <&" + digit + " 2>/dev/null; echo end-9; if [ -d /proc/self/fd ]; then [ -e /proc/self/fd/100 ] && echo leaked-100; "
        "[ -e /proc/self/fd/1 ] && echo control-1; fi; exit 0");
    close(low);
    close(100);
    if (!outcome.spawned || outcome.out.find("end-9") == std::string::npos)
        return {name, Verdict::fail, "the check did not run: " + describe(outcome)};
    std::vector<std::string> leaks;
    if (outcome.out.find("SECRET-IN-HOME-SSH") != std::string::npos) leaks.push_back(digit + " (the secret was read through it)");
    if (outcome.out.find("leaked-100") != std::string::npos) leaks.push_back("100");
    if (!leaks.empty()) return {name, Verdict::fail, "descriptors open in the caller reached the command: " + joined(leaks)};
    if (outcome.out.find("control-1") == std::string::npos)
        return {name, Verdict::pass, "descriptor " + digit + " closed (no /proc in the sandbox: descriptor 100 not observable)"};
    return {name, Verdict::pass, "descriptors " + digit + " and 100 of the caller are closed in the command"};
}

Result check_stdio(Bench& bench) {
    const char* name = "stdio";
    Outcome outcome = bench.run({"/bin/sh", "-c", "read line; echo \"out:$line\"; echo \"err:$line\" >&2"}, "ping\n");
    if (!outcome.spawned || outcome.status != 0) return {name, Verdict::fail, describe(outcome)};
    if (outcome.out != "out:ping\n" || outcome.err.find("err:ping\n") == std::string::npos)
        return {name, Verdict::fail, "stdin/stdout/stderr are not the descriptors given: stdout \"" + outcome.out +
                                         "\" stderr \"" + outcome.err + "\""};
    return {name, Verdict::pass, "stdin read, stdout and stderr each on their own descriptor"};
}

}  // namespace

std::string describe(const Outcome& outcome) {
    if (!outcome.spawned) return "spawn failed (status " + std::to_string(outcome.spawn_status) + "): " + outcome.spawn_error;
    std::string text = "status " + std::to_string(outcome.status);
    if (outcome.timed_out) text += " (killed after the time limit)";
    if (!outcome.err.empty()) text += ", stderr: " + outcome.err.substr(0, 300);
    return text;
}

std::vector<Result> check_process_obligations(Bench& bench) {
    return {check_environment(bench), check_exit_statuses(bench), check_command_not_found(bench),
            check_signal_forwarding(bench), check_descriptors(bench), check_stdio(bench)};
}

}  // namespace oms::backend_check
