#include "docker_backend.hpp"

#include "cli_env.hpp"
#include "cli_process.hpp"
#include "cli_trust.hpp"
#include "container_plan.hpp"
#include "daemon.hpp"
#include "default_user.hpp"
#include "exec_request.hpp"
#include "exec_run.hpp"
#include "host_publisher.hpp"
#include "host_relay.hpp"
#include "name_resolution.hpp"
#include "one_shot_lifeline.hpp"
#include "one_shot_run.hpp"
#include "probe_report.hpp"
#include "relayed_run.hpp"
#include "render_text.hpp"
#include "run_inputs.hpp"
#include "runner_run.hpp"
#include "state_folder.hpp"
#include "surfnet_plan.hpp"
#include "warm_identity.hpp"
#include "warm_pool.hpp"

#include "../runner/runner_protocol.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <random>

namespace oms::docker {

namespace {

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// oms-docker-runner is installed next to this plugin's library.
std::string runner_path() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&runner_path), &info) == 0 || !info.dli_fname) return "";
    std::string library = info.dli_fname;
    size_t slash = library.rfind('/');
    return (slash == std::string::npos ? std::string(".") : library.substr(0, slash)) + "/oms-docker-runner";
}

std::string require_runner() {
    std::string path = runner_path();
    if (access(path.c_str(), X_OK) != 0)
        throw sdk::Error(OMS_ERR_UNAVAILABLE, "docker: the docker backend needs " + path +
                                                  " (installed with the plugin; it starts every command); reinstall it");
    return path;
}

std::string run_name() {
    std::random_device random;
    return "oms-run-" + fnv_hex(std::to_string(random()) + std::to_string(random()) + std::to_string(getpid()));
}

}  // namespace

const oms_config_key* DockerBackend::config_keys() { return docker::config_keys(); }
size_t DockerBackend::config_key_count() { return docker::config_key_count(); }

DockerBackend::DockerBackend(sdk::Host host) : sdk::BackendPlugin(host) {
    try {
        settings_ = read_settings(this->host());
    } catch (const sdk::Error& e) {
        config_error_ = e.what();
    }
}

std::string DockerBackend::require_socket(oms_status failure) const {
    std::string socket = socket_path(settings_, std::getenv("DOCKER_HOST"));
    if (socket.empty())
        throw sdk::Error(failure, "docker: DOCKER_HOST (" + environment("DOCKER_HOST") +
                                      ") is not a unix socket; set [plugin.docker] socket to the daemon's socket");
    return socket;
}

DockerBackend::Resolved DockerBackend::resolve(oms_status failure, const RunInputs& in) const {
    if (!config_error_.empty()) throw sdk::Error(OMS_ERR_INVALID, config_error_);
    if (settings_.manifest.empty())
        throw sdk::Error(failure, "docker: no runtime manifest; set [plugin.docker] manifest = \"/path/to/runtime.toml\" "
                                  "(a file with image = \"sha256:...\")");
    Resolved r;
    r.manifest = load_manifest(settings_.manifest, folders_a_run_writes(in));
    if (!settings_.user.empty() || r.manifest.user)
        r.user = normalized_user(!settings_.user.empty() ? settings_.user : *r.manifest.user);
    if (r.user.empty()) r.user = default_user_for(in.worktree, failure);
    r.socket = require_socket(failure);
    r.cli = find_program(settings_.docker, environment("PATH"));
    if (r.cli.empty())
        throw sdk::Error(failure, "docker: the docker CLI '" + settings_.docker +
                                      "' was not found (install docker.io, or set [plugin.docker] docker)");
    refuse_command_written_cli(r.cli, in);
    return r;
}

// Gathers every fact it can (daemon first, so doctor shows it even when the
// manifest is wrong), then reports them; report_probe decides usability.
void DockerBackend::probe(const sdk::Report& report) {
    ProbeFacts facts;
    facts.config_error = config_error_;
    facts.cli = find_program(settings_.docker, environment("PATH"));
    facts.socket = socket_path(settings_, std::getenv("DOCKER_HOST"));
    if (!facts.socket.empty()) {
        try {
            facts.daemon = daemon_version(EngineClient(facts.socket, 3000));
        } catch (const std::exception& e) {
            facts.daemon_error = e.what();
        }
    }
    try {
        if (settings_.manifest.empty()) throw sdk::Error(OMS_ERR_UNAVAILABLE, "no runtime manifest configured");
        facts.manifest = load_manifest(settings_.manifest);
        facts.user = !settings_.user.empty() || facts.manifest->user
                         ? normalized_user(!settings_.user.empty() ? settings_.user : *facts.manifest->user)
                         : "the worktree's owner (a run in a worktree root owns is refused)";
        if (facts.daemon) facts.image_present = image_present(EngineClient(facts.socket, 3000), facts.manifest->image);
    } catch (const std::exception& e) {
        facts.manifest_error = e.what();
    }
    facts.runner = runner_path();
    facts.runner_present = access(facts.runner.c_str(), X_OK) == 0;
    report_probe(settings_, facts, report);
}

void DockerBackend::render(const sdk::Context& context, const sdk::Policy& policy, const sdk::Report& report) {
    RunInputs in = inputs_from(context, policy);
    Resolved r = resolve(OMS_ERR_INVALID, in);
    const SurfnetPlan net = plan_surfnet(in);
    Mode mode = settings_.warm && net.trusted_binary.empty() ? Mode::Warm : Mode::OneShot;
    if (mode == Mode::Warm && in.interactive && !net.run_ports.empty()) mode = Mode::OneShot;  // see spawn
    ContainerPlan plan = plan_container(settings_, r.manifest.image, r.user, in, mode, r.socket);
    const std::vector<uint16_t> relayed = container_relay_ports(net, mode == Mode::Warm);
    if (!relayed.empty()) plan.runner_args.push_back(relay_flag(relayed));
    if (mode == Mode::Warm) plan.runner_args.push_back(warm_publish_flag());
    else if (!in.publish_ports.empty()) add_one_shot_publishing(plan, one_shot_publish_folder(in.state_dir, "oms-run-<id>"));
    if (!net.trusted_binary.empty()) plan.expected.push_back(net.trusted_expect);
    RunInputs shown = in;
    if (!net.trusted_binary.empty()) shown.argv[0] = net.trusted_binary;  // what the runner starts
    for (const std::string& line : render_lines(settings_, plan, shown, mode, runner_path())) report.text(line);
    for (const std::string& line : surfnet_lines(net, mode == Mode::Warm)) report.text(line);
    for (const std::string& line : published_lines(published_ports(in.publish_ports))) report.text(line);
    report.text(resolver_line(settings_));
}

std::unique_ptr<sdk::Run> DockerBackend::spawn(const sdk::Context& context, const sdk::Policy& policy,
                                               oms_stdio stdio) {
    RunInputs in = inputs_from(context, policy);
    Resolved r = resolve(OMS_ERR_UNAVAILABLE, in);
    if (in.argv.empty()) throw sdk::Error(OMS_ERR_INVALID, "docker: no command to run");
    EngineClient client(r.socket);
    try {
        if (!image_present(client, r.manifest.image))
            throw sdk::Error(OMS_ERR_FAILED,
                             missing_image_message(r.manifest.image, r.manifest.archive.value_or(""), r.manifest.path));
    } catch (const sdk::Error&) {
        throw;
    } catch (const std::exception& e) {
        throw sdk::Error(OMS_ERR_UNAVAILABLE, std::string("docker: no Docker daemon: ") + e.what());
    }
    // Before any container is made: it binds this file at /etc/resolv.conf.
    if (answers_dns_itself(settings_)) write_resolv_conf(in.state_dir);
    // The docker CLI refuses --tty unless stdin really is a terminal, so ask the fd.
    const bool tty = isatty(stdio.in) != 0;
    const SurfnetPlan net = plan_surfnet(in);
    // A trusted Surfpool run gets a container of its own (see surfnet_plan.hpp).
    // So does a terminal command with ports of its run's own: the warm
    // container's terminal exec (Engine API) has no runner to hold them for
    // that one command, and holding them for the container would hand them
    // to every later command of the task.
    const bool own_ports_on_a_terminal = tty && !net.run_ports.empty();
    if (settings_.warm && own_ports_on_a_terminal)
        host().log(OMS_LOG_INFO, "docker: a terminal command with its own egress proxy port runs in a one-shot "
                                 "container (a warm container's terminal exec cannot hold a port for one command)");
    if (settings_.warm && net.trusted_binary.empty() && !own_ports_on_a_terminal)
        return spawn_warm(r, in, net, client, tty, stdio);
    ContainerPlan plan = plan_container(settings_, r.manifest.image, r.user, in, Mode::OneShot, r.socket);
    log_keypair_notices(plan, in.state_dir);
    std::vector<std::string> command = in.argv;
    if (!net.trusted_binary.empty()) {
        plan.expected.push_back(net.trusted_expect);  // the runner refuses another file at that path
        command[0] = net.trusted_binary;              // and starts exactly that one
    }
    // Containers of this task whose oms died (their lifeline ended them, or should have).
    remove_one_shot_leftovers(client, in.state_dir, in.worktree, false);
    std::string name = run_name();
    auto lifeline = std::make_unique<OneShotLifeline>(in.state_dir, name);
    const std::string socket_dir = lifeline->folder();
    std::unique_ptr<RelayedRun> relayed;
    const std::vector<uint16_t> relay_ports = container_relay_ports(net, false);  // the container is the run's own
    if (!relay_ports.empty()) {
        const std::string lock = socket_dir + ".lock";
        relayed = std::make_unique<RelayedRun>(
            std::make_unique<HostRelay>(socket_dir + "/" + runner::kRelaySocketName, lock, relay_ports,
                                        in.refusal_log),
            "", lock);
        plan.runner_args.push_back(relay_flag(relay_ports));
    }
    const std::string publish_dir = one_shot_publish_folder(in.state_dir, name);
    std::unique_ptr<RelayedRun> published = publisher(in, publish_dir, r.user);
    if (published) add_one_shot_publishing(plan, publish_dir);
    std::vector<std::string> argv = one_shot_argv(settings_, plan, name, command, tty, require_runner(), socket_dir,
                                                  one_shot_labels(in.worktree, name));
    argv[0] = r.cli;
    // Before the container starts: its resolver connects once, when it starts.
    // A report only: when its socket cannot be made (a state folder whose
    // path is too long for a socket's name, say), the run goes on without
    // it, and the resolver, finding no socket, answers as before.
    std::unique_ptr<ResolverReports> reports;
    if (answers_dns_itself(settings_) && !in.refusal_log.empty()) {
        try {
            reports = std::make_unique<ResolverReports>(socket_dir + "/" + runner::kLookupReportSocketName,
                                                        in.refusal_log);
        } catch (const sdk::Error&) {
        }
    }
    std::unique_ptr<sdk::Run> run = std::make_unique<OneShotRun>(
        client, name, argv, cli_environment(in.parent_env, plan.env), stdio, std::move(lifeline), std::move(reports));
    // Innermost first: the container ends, then the relay, then the published ports.
    for (std::unique_ptr<RelayedRun>* outer : {&relayed, &published}) {
        if (!*outer) continue;
        (*outer)->start(std::move(run));
        run = std::move(*outer);
    }
    return run;
}

// A command in the task's warm container: handed to the container's runner
// (a fork inside the container), or, with a terminal, exec'd through the
// Engine API so the command gets a terminal of the container's own rather
// than the host's.
std::unique_ptr<sdk::Run> DockerBackend::spawn_warm(const Resolved& r, const RunInputs& in, const SurfnetPlan& net,
                                                    const EngineClient& client, bool tty, oms_stdio stdio) {
    ContainerPlan plan = plan_container(settings_, r.manifest.image, r.user, in, Mode::Warm, r.socket);
    log_keypair_notices(plan, in.state_dir);
    // Part of its identity: the fixed ports only. The run's own ports (its
    // egress proxy's) differ from run to run; in the identity they would
    // give every run a container of its own and sweep away the one a
    // command of the task still runs in.
    const std::vector<uint16_t> fixed = container_relay_ports(net, true);
    if (!fixed.empty()) plan.runner_args.push_back(relay_flag(fixed));
    // Always: publishing is per run, and the container is the task's.
    plan.runner_args.push_back(warm_publish_flag());
    WarmPool pool(settings_, client, r.cli, require_runner(), in.state_dir);
    WarmContainer warm = pool.connect(plan, in);
    std::unique_ptr<RelayedRun> relayed, own, published;
    try {
        relayed = shared_relay(in, net, warm.name);
        own = own_relay(in, net, warm.name);
        published = publisher(in, runner_socket_dir(in.state_dir, warm.name), std::nullopt);
    } catch (...) {
        close(warm.runner);
        throw;
    }
    std::unique_ptr<sdk::Run> run;
    if (!tty) {
        // With run ports, the runner holds them for this command before it starts (or nothing runs).
        run = std::make_unique<RunnerRun>(warm.runner, in.working_dir, in.argv, plan.env, stdio,
                                          answers_dns_itself(settings_) ? in.refusal_log : "", net.run_ports);
    } else {
        close(warm.runner);
        ExecCreated created =
            create_exec(client, warm.name, exec_create_body(plan, in.working_dir, restricted_argv(plan, in.argv), true));
        if (created.status != 201)
            throw sdk::Error(OMS_ERR_FAILED, "docker: cannot exec in " + warm.name + ": " + created.message);
        run = std::make_unique<ExecRun>(client, warm.name, created.id, plan.user, true, stdio);
    }
    // Innermost first: the command ends, then its own relay, then the shared
    // one, then the published ports.
    for (std::unique_ptr<RelayedRun>* outer : {&own, &relayed, &published}) {
        if (!*outer) continue;
        (*outer)->start(std::move(run));
        run = std::move(*outer);
    }
    return run;
}

// The container's runner holds the fixed ports for its whole life; this
// run's oms serves the host end while the command runs (or stands by for
// another run of the task that serves it now).
std::unique_ptr<RelayedRun> DockerBackend::shared_relay(const RunInputs& in, const SurfnetPlan& net,
                                                        const std::string& container) const {
    if (net.relay_ports.empty()) return nullptr;
    const std::string socket = runner_socket_dir(in.state_dir, container) + "/" + runner::kRelaySocketName;
    return std::make_unique<RelayedRun>(std::make_unique<HostRelay>(socket, in.state_dir + "/docker/" + container +
                                                                                ".relay-lock",
                                                                    net.relay_ports, in.refusal_log),
                                        "", "");
}

// The run's own ports, relayed over a socket of the run's own that only this
// oms serves (no lock), bound before the runner is asked to hold them.
std::unique_ptr<RelayedRun> DockerBackend::own_relay(const RunInputs& in, const SurfnetPlan& net,
                                                     const std::string& container) const {
    if (net.run_ports.empty()) return nullptr;
    const std::string socket =
        runner_socket_dir(in.state_dir, container) + "/" + runner::run_relay_socket_name(net.run_ports.front());
    return std::make_unique<RelayedRun>(std::make_unique<HostRelay>(socket, "", net.run_ports, in.refusal_log), "", "");
}

// The run's published ports, served by this run's oms while its command runs,
// over pub.sock in `folder`: the warm container's socket folder, or (with
// `lend_to`, the container's "uid:gid") a one-shot run's folder of its own,
// made here, lent to the container's user and removed after the run.
std::unique_ptr<RelayedRun> DockerBackend::publisher(const RunInputs& in, const std::string& folder,
                                                     const std::optional<std::string>& lend_to) const {
    const std::vector<uint16_t> ports = published_ports(in.publish_ports);
    if (ports.empty()) return nullptr;
    // The container's resolver answers there (inner_resolver.hpp): published,
    // any local user could fill its refusal reports and its few TCP slots.
    if (answers_dns_itself(settings_) && std::binary_search(ports.begin(), ports.end(), uint16_t{53}))
        throw sdk::Error(OMS_ERR_UNSUPPORTED,
                         "docker: cannot publish port 53: the container's own resolver answers there; nothing ran");
    if (!lend_to)
        return std::make_unique<RelayedRun>(
            std::make_unique<HostPublisher>(folder + "/" + runner::kPublishSocketName, ports), "", "");
    // Listening on the host first: a port another program holds refuses the run before the folder is made.
    auto serving = std::make_unique<HostPublisher>(folder + "/" + runner::kPublishSocketName, ports);
    lend_to_container(folder, *lend_to);
    return std::make_unique<RelayedRun>(std::move(serving), folder, "");
}

void DockerBackend::check_verify() const {
    if (!config_error_.empty()) throw sdk::Error(OMS_ERR_INVALID, config_error_);
    if (settings_.network == "none") return;
    throw sdk::Error(OMS_ERR_UNSUPPORTED, "[plugin.docker] network = \"" + settings_.network +
                                              "\": the check's container would reach that network, not only its own "
                                              "Surfnet; oms verify needs network \"none\"");
}

void DockerBackend::end_task(const sdk::Context& context, const sdk::Report& report) {
    if (!config_error_.empty()) throw sdk::Error(OMS_ERR_INVALID, config_error_);
    EngineClient client(require_socket(OMS_ERR_UNAVAILABLE));
    try {
        daemon_version(client);
    } catch (const std::exception& e) {
        // No daemon answers: no container of this task runs, nothing to end
        // (and no error for a user who never started one).
        report.detail(std::string("no Docker daemon answers (") + e.what() + "): no container to end");
        return;
    }
    WarmPool pool(settings_, client, "", "", std::string(context.state_dir()));
    try {
        size_t removed = pool.end_task(std::string(context.worktree()));
        report.detail("warm containers removed: " + std::to_string(removed));
        // One-shot containers of the task that outlived their run, and any still running: the task is over.
        removed = remove_one_shot_leftovers(client, std::string(context.state_dir()), std::string(context.worktree()), true);
        report.detail("one-shot containers removed: " + std::to_string(removed));
    } catch (const std::runtime_error& e) {
        throw sdk::Error(OMS_ERR_FAILED, e.what());  // the core names the backend
    }
}

}  // namespace oms::docker
