#include "probe_report.hpp"

#include "container_plan.hpp"

#include <unistd.h>

namespace oms::docker {

namespace {

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : " ") + item;
    return out;
}

void report_daemon(const ProbeFacts& f, const sdk::Report& report) {
    if (f.cli.empty()) report.detail("docker CLI: not found");
    else report.detail("docker CLI: " + f.cli);
    if (f.socket.empty()) report.detail("daemon: DOCKER_HOST is not a unix socket (set [plugin.docker] socket)");
    else if (f.daemon)
        report.detail("daemon: reachable at unix://" + f.socket + " (Docker " + f.daemon->version + ", API " +
                      f.daemon->api_version + ")");
    else report.detail("daemon: not reachable at unix://" + f.socket + ": " + f.daemon_error);
}

void report_image(const Settings& s, const ProbeFacts& f, const sdk::Report& report) {
    if (!f.manifest) {
        report.detail("manifest: " + (s.manifest.empty() ? std::string("not set") : s.manifest) + ": " +
                      f.manifest_error);
        return;
    }
    report.detail("manifest: " + f.manifest->path);
    report.detail("image: " + f.manifest->image +
                  (f.daemon ? (f.image_present ? " (present)" : " (NOT loaded; oms never pulls)") : " (daemon unknown)"));
    report.detail("user: " + f.user);
}

void report_limits(const Settings& s, const ProbeFacts& f, const sdk::Report& report) {
    report.detail("mode: " + std::string(s.warm ? "warm (one container per task; each command started in it by "
                                                  "oms-docker-runner)"
                                                : "one-shot (one container per command)"));
    if (s.warm) report.detail("runner: " + f.runner + (f.runner_present ? "" : " (MISSING)"));
    // The task's HOME and TMPDIR are the warm container's own folders, not
    // the per-run paths (the conformance kit's declaration, docs/backend-checklist.md).
    if (s.warm) report.detail(std::string("sandbox-env: HOME=") + kWarmHome + "; TMPDIR=/tmp");
    report.detail("network: " + s.network);
    if (s.network == "none") {
        report.detail("Surfnet relay: the policy's loopback ports (the network plugin's surfnet_port) held on the "
                      "container's 127.0.0.1 by oms-docker-runner and carried to the host's 127.0.0.1 through oms " +
                      std::string(s.warm ? "(warm: the runner holds them for the container's life; each run's oms "
                                           "serves the host end while it runs)"
                                         : "(one-shot: per run)") +
                      "; TCP only, at most 64 connections at once");
        report.detail("trusted Surfpool binary (--surfpool): run in a one-shot container of its own, no relay; it "
                      "listens on that container's loopback only");
    }
    // The conformance kit's declaration (docs/backend-checklist.md, private-home).
    report.detail("private-home: in-sandbox (a tmpfs at the private HOME's path in the container, thrown away with it; "
                  "nothing the command writes there reaches the host's folder)");
    report.detail("limits: pids " + std::to_string(s.pids_limit) + ", memory " + s.memory + ", cpus " + s.cpus);
}

void report_missing(const Settings& s, const sdk::Report& report) {
    if (s.network != "none")
        report.missing("network '" + s.network + "' is not limited to the Surfnet port: the container reaches "
                       "whatever that network reaches");
    else
        report.missing("a trusted Surfpool binary listens on its own container's loopback: the host and other "
                       "commands cannot reach it (the landlock backend serves the host's loopback)");
    report.missing("secret files (-keypair.json, /id.json) that appear under the worktree or mounts after the "
                   "container starts are not hidden");
    // Allows docker cannot grant (docs/rule-semantics.md R3 and W5): it runs
    // stricter. Each line begins with the rule's name, as the conformance kit
    // and `oms doctor --probe` read it.
    report.missing("read-allow-tree: not granted for a file a secret suffix matches (keypair_exempt): every "
                   "matching file found in the mounts is hidden");
    report.missing("write-allow-tree: not granted outside the worktree and the --rw mounts (a write root elsewhere, "
                   "such as a cache under HOME, is not mounted)");
    if (s.warm) {
        report.missing("warm mode: HOME and /tmp are private to the task, shared by its commands, not fresh per "
                       "command (warm = false gives a fresh HOME per command)");
        report.missing("warm mode: commands of the task that run at the same time can see and signal each other "
                       "(same uid)");
        if (geteuid() != 0)
            report.missing("warm mode: a command can write into the runner's socket folder (not size-limited; "
                           "removed by oms task end)");
    }
}

// The first reason the backend cannot run, or empty.
std::string blocking_reason(const Settings& s, const ProbeFacts& f) {
    if (!f.config_error.empty()) return f.config_error;
    if (f.cli.empty()) return "docker: the docker CLI '" + s.docker + "' was not found (install docker.io)";
    if (f.socket.empty()) return "docker: DOCKER_HOST is not a unix socket; set [plugin.docker] socket";
    if (!f.daemon) return "docker: no Docker daemon: " + f.daemon_error;
    if (!f.manifest)
        return "docker: runtime manifest: " + f.manifest_error +
               " (set [plugin.docker] manifest to a file with image = \"sha256:...\")";
    if (!f.runner_present)
        return "docker: the docker backend needs " + f.runner + " (installed with the plugin; it starts every command); "
               "reinstall it";
    if (!f.image_present)
        return missing_image_message(f.manifest->image, f.manifest->archive.value_or(""), f.manifest->path);
    return "";
}

}  // namespace

std::vector<std::string> hardening_flags(const Settings& s, const std::string& user) {
    std::vector<std::string> flags{"--pull=never"};  // no --init: the runner is PID 1, warm and one-shot
    std::vector<std::string> rest{"--read-only", "--cap-drop=ALL", "--security-opt=no-new-privileges",
            "--user=" + user, "--network=" + s.network, "--pids-limit=" + std::to_string(s.pids_limit),
            "--memory=" + s.memory, "--memory-swap=" + s.memory, "--cpus=" + s.cpus,
            "--tmpfs=/tmp", "--tmpfs=<HOME>"};
    flags.insert(flags.end(), rest.begin(), rest.end());
    return flags;
}

void report_probe(const Settings& s, const ProbeFacts& f, const sdk::Report& report) {
    report_daemon(f, report);
    report_image(s, f, report);
    report_limits(s, f, report);
    const bool numeric = !f.user.empty() && f.user.find(' ') == std::string::npos;
    report.detail("flags: " + joined(hardening_flags(s, numeric ? f.user : "UID:GID")));
    report_missing(s, report);
    std::string reason = blocking_reason(s, f);
    if (!reason.empty()) {
        report.summary("docker (unavailable: " + reason + ")");
        throw sdk::Error(OMS_ERR_UNAVAILABLE, reason);
    }
    std::string image = f.manifest->image;
    report.summary("docker (container; image " + image.substr(0, image.find(':') + 13) + "..., network " + s.network +
                   (s.warm ? ", warm" : "") + ")");
    report.settings("Docker container: pinned image, read-only root, no capabilities, non-root user, network " +
                    s.network + ".");
}

}  // namespace oms::docker
