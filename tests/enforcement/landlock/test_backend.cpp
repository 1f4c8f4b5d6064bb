// The backend's contract around enforcement: doctor lines, degrading on an
// older ABI (refuse, or run with best effort), the rendered ruleset, failing
// closed, the exact environment, exit codes and signals.
#include "test_support.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>

using namespace oms::test;

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("doctor: one summary line, nothing missing on this kernel", "[landlock][backend]") {
    require_landlock();
    FakeHost host;
    LandlockPlugin plugin(host);
    REQUIRE(plugin.create_error.empty());
    CHECK(plugin.api().flags == (OMS_BACKEND_CONFINES | OMS_BACKEND_SHARES_PROCESS_GROUP));
    CHECK(plugin.api().strength == 100);
    CHECK(std::string(plugin.api().platforms) == "linux");
    ReportCollector report;
    ErrorBuffer error;
    REQUIRE(plugin.api().probe(plugin.instance(), report.sink(), error.get()) == OMS_OK);
    auto summary = report.of(OMS_REPORT_SUMMARY);
    REQUIRE(summary.size() == 1);
    INFO(summary[0]);
    CHECK(std::regex_match(summary[0], std::regex(R"(host \(landlock ABI ([7-9]|[1-9][0-9]): filesystem, TCP ports, scoped; seccomp\))")));
    CHECK(report.of(OMS_REPORT_MISSING).empty());
}

// Asking the kernel's audit whether it records denials costs root a kernel
// thread; only a person reads the answer, so a probe before a run skips it.
TEST_CASE("probe: the audit question is asked for a person only; the guarantees are told to the host too",
          "[landlock][backend]") {
    require_landlock();
    FakeHost host;
    LandlockPlugin plugin(host);
    REQUIRE(plugin.create_error.empty());
    auto details = [&](oms_report_audience audience) {
        ReportCollector report(audience);
        ErrorBuffer error;
        REQUIRE(plugin.api().probe(plugin.instance(), report.sink(), error.get()) == OMS_OK);
        CHECK(report.of(OMS_REPORT_SUMMARY).size() == 1);
        std::string joined;
        for (const auto& line : report.of(OMS_REPORT_DETAIL)) joined += line + "\n";
        return joined;
    };
    const std::string for_person = details(OMS_REPORT_FOR_PERSON), for_host = details(OMS_REPORT_FOR_HOST);
    INFO(for_person << "--\n" << for_host);
    CHECK(has(for_person, "denial reports: "));
    CHECK_FALSE(has(for_host, "denial reports: "));
    CHECK(has(for_person, "guarantees: "));
    CHECK(has(for_host, "guarantees: "));
}

TEST_CASE("an older ABI is reported and refused unless best effort", "[landlock][backend]") {
    require_landlock();
    FakeHost host;
    host.integers["max_abi"] = 3;
    LandlockPlugin plugin(host);
    ReportCollector report;
    ErrorBuffer error;
    REQUIRE(plugin.api().probe(plugin.instance(), report.sink(), error.get()) == OMS_OK);
    CHECK(report.of(OMS_REPORT_SUMMARY) == std::vector<std::string>{"host (landlock ABI 3: filesystem; seccomp)"});
    auto missing = report.of(OMS_REPORT_MISSING);
    CHECK(missing.size() == 3);  // TCP ports, IOCTL_DEV, scopes
    CHECK(report.of(OMS_REPORT_WARN_ONCE).size() == 1);

    World w;
    RunOptions refused;
    refused.max_abi = 3;
    auto r = run_in_plugin(w, "echo RAN > " + w.work + "/ran.txt", refused);
    CHECK(r.spawn_status == OMS_ERR_UNSUPPORTED);
    CHECK(has(r.spawn_error, "ABI 4"));
    CHECK(has(r.spawn_error, "--best-effort"));
    CHECK_FALSE(exists(w.work + "/ran.txt"));

    RunOptions best = refused;
    best.flags = OMS_RUN_BEST_EFFORT;
    auto ran = run_in_plugin(w, "echo RAN; cat " + w.home + "/.ssh/id_rsa; exit 0", best);
    INFO(ran.spawn_error << ran.err);
    CHECK(ran.exit_code == 0);
    CHECK(has(ran.out, "RAN"));
    CHECK_FALSE(has(ran.out, kSshKey));  // what ABI 3 still gives holds
}

TEST_CASE("render prints the ruleset", "[landlock][backend]") {
    require_landlock();
    World w;
    FakeHost host;
    LandlockPlugin plugin(host);
    ContextBuilder context = default_context(w, {"sh", "-c", "true"});
    PolicyBuilder policy = default_policy(w);
    ReportCollector report;
    ErrorBuffer error;
    REQUIRE(plugin.api().render(plugin.instance(), context.build(), policy.build(), report.sink(), error.get()) ==
            OMS_OK);
    const std::string text = report.text();
    INFO(text);
    CHECK(has(text, "home skeleton  " + w.home + "  (read-only tmpfs"));
    CHECK(has(text, "bound back     " + w.toolchain + "  (same path, same rights, in HOME's skeleton)"));
    CHECK(has(text, "not present    " + w.home + "/.ssh (under HOME, outside every granted path: absent inside)"));
    CHECK(has(text, "allow /  [read_dir]  (listing only"));
    CHECK(has(text, "hide file      " + w.work + "/wallet-keypair.json"));
    CHECK(has(text, "hide file      " + w.work + "/nested/deeper/id.json"));
    CHECK(has(text, "read-only      " + w.work + "/.git"));
    CHECK(has(text, "read-only      " + w.pinned));
    CHECK(has(text, "pinned folder  " + w.work + "/tests"));
    CHECK(has(text, "allow " + w.work + "  [execute,read_file,read_dir,write_file,truncate"));
    CHECK(has(text, "tcp ports: not filtered (private network namespace"));
    CHECK(has(text, "listen/connect: any other port on this lo"));
    CHECK(has(text, "  dns: "));  // the resolv.conf covered, or why not
    CHECK(has(text, "relay 127.0.0.1:8899 -> host 127.0.0.1:8899"));
    CHECK(has(text, "ioctl TIOCSTI"));
    CHECK_FALSE(has(text, "allow " + w.home + "  "));  // HOME itself gets no rule
}

TEST_CASE("fails closed: a child that cannot confine itself never runs the command", "[landlock][backend]") {
    require_landlock();
    World w;
    FakeHost host;
    LandlockPlugin plugin(host);
    ContextBuilder context = default_context(w, {"sh", "-c", "echo RAN > " + w.outside + "/ran.txt"});
    context.worktree = w.root / "no-such-worktree";
    PolicyBuilder policy = default_policy(w);
    ErrorBuffer error;
    void* run = nullptr;
    oms_status status = plugin.api().spawn(plugin.instance(), context.build(), policy.build(), oms_stdio{0, 1, 2},
                                           &run, error.get());
    CHECK(status == OMS_ERR_FAILED);
    CHECK(has(error.message(), "enter the worktree"));
    CHECK(has(error.message(), "did not run"));
    CHECK_FALSE(exists(w.outside + "/ran.txt"));

    // A command that is not there, or is not executable, is the command's
    // failure with a shell's status and words, inside the sandbox: 127, 126.
    RunOptions missing;
    missing.argv = {"no-such-command-xyz"};
    auto r = run_in_plugin(w, "", missing);
    CHECK(r.spawn_status == OMS_OK);
    CHECK(r.exit_code == 127);
    CHECK(has(r.err, "oms: no-such-command-xyz: command not found"));
    write_file(w.work + "/not-executable.sh", "#!/bin/sh\ntouch " + w.work + "/ran.txt\n");
    RunOptions not_executable;
    not_executable.argv = {w.work + "/not-executable.sh"};
    auto denied = run_in_plugin(w, "", not_executable);
    CHECK(denied.exit_code == 126);
    CHECK(has(denied.err, "not-executable.sh: Permission denied"));
    CHECK_FALSE(exists(w.work + "/ran.txt"));
    // Positive control: made executable, the same file runs.
    REQUIRE(chmod((w.work + "/not-executable.sh").c_str(), 0755) == 0);
    auto ran = run_in_plugin(w, "", not_executable);
    CHECK(ran.exit_code == 0);
    CHECK(exists(w.work + "/ran.txt"));
}

TEST_CASE("fails closed: a link in a rule's or a mount's path (a folder swapped since planning) runs nothing",
          "[landlock][backend]") {
    require_landlock();
    World w;
    FakeHost host;
    LandlockPlugin plugin(host);
    // The private HOME lives in the temp folder, which commands may write: a
    // command left running by an earlier run could swap it for a link to the
    // real HOME. Planned rule paths are canonical, so a link in one is that.
    const std::string swapped = w.root / "swapped-home";
    REQUIRE(symlink(w.home.c_str(), swapped.c_str()) == 0);
    const std::string script = "echo RAN > " + w.outside + "/ran.txt; echo owned > " + swapped + "/planted";
    ContextBuilder context = default_context(w, {"sh", "-c", script});
    PolicyBuilder policy = default_policy(w);
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, swapped);
    ErrorBuffer error;
    void* run = nullptr;
    oms_status status = plugin.api().spawn(plugin.instance(), context.build(), policy.build(), oms_stdio{0, 1, 2},
                                           &run, error.get());
    CHECK(status == OMS_ERR_FAILED);
    CHECK(has(error.message(), "a link appeared in its path"));
    CHECK_FALSE(exists(w.outside + "/ran.txt"));
    CHECK_FALSE(exists(w.home + "/planted"));

    // The same for a mount: a read-only bind whose path now goes through a link.
    const std::string swapped_work = w.root / "swapped-work";
    REQUIRE(symlink(w.work.c_str(), swapped_work.c_str()) == 0);
    PolicyBuilder mounts = default_policy(w);
    mounts.add(OMS_RULE_WRITE_DENY, swapped_work + "/.git");
    run = nullptr;
    status = plugin.api().spawn(plugin.instance(), context.build(), mounts.build(), oms_stdio{0, 1, 2}, &run,
                                error.get());
    CHECK(status == OMS_ERR_FAILED);
    CHECK(has(error.message(), "a link appeared in its path"));
    CHECK_FALSE(exists(w.outside + "/ran.txt"));

    // Positive control: the same run without the linked rule runs.
    PolicyBuilder plain = default_policy(w);
    ContextBuilder ok_context = default_context(w, {"sh", "-c", "echo RAN > " + w.work + "/ran.txt"});
    run = nullptr;
    REQUIRE(plugin.api().spawn(plugin.instance(), ok_context.build(), plain.build(), oms_stdio{0, 1, 2}, &run,
                               error.get()) == OMS_OK);
    int32_t code = -1;
    plugin.api().wait(plugin.instance(), run, &code, error.get());
    plugin.api().release(plugin.instance(), run);
    CHECK(code == 0);
    CHECK(exists(w.work + "/ran.txt"));
}

TEST_CASE("the command gets exactly the policy's environment", "[landlock][backend]") {
    require_landlock();
    World w;
    RunOptions options;
    options.argv = {"env"};
    auto r = run_in_plugin(w, "", options);
    INFO(r.spawn_error << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "PATH=/usr/bin:/bin\nHOME=" + w.private_home + "\nTMPDIR=" + w.temp + "\nLANG=C.UTF-8\n");
}

TEST_CASE("exit codes and forwarded signals, with oms's signals blocked", "[landlock][backend]") {
    require_landlock();
    World w;
    CHECK(run_in_plugin(w, "exit 7").exit_code == 7);

    // oms blocks these in its threads; the command must start with defaults.
    sigset_t blocked, previous;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    pthread_sigmask(SIG_BLOCK, &blocked, &previous);
    FakeHost host;
    LandlockPlugin plugin(host);
    for (int sig : {SIGTERM, SIGINT}) {
        ContextBuilder context = default_context(w, {"sleep", "30"});
        PolicyBuilder policy = default_policy(w);
        ErrorBuffer error;
        void* run = nullptr;
        REQUIRE(plugin.api().spawn(plugin.instance(), context.build(), policy.build(), oms_stdio{0, 1, 2}, &run,
                                   error.get()) == OMS_OK);
        usleep(100 * 1000);
        CHECK(plugin.api().signal(plugin.instance(), run, sig) == OMS_OK);
        int32_t code = -1;
        CHECK(plugin.api().wait(plugin.instance(), run, &code, error.get()) == OMS_OK);
        plugin.api().release(plugin.instance(), run);
        CHECK(code == 128 + sig);
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

TEST_CASE("through oms: an older ABI is refused, best effort runs, doctor says what is lost", "[landlock][backend]") {
    require_landlock();
    if (!oms_run_available()) FAIL(oms_binary() << " cannot run commands: the end-to-end degrade check cannot run");
    World w;
    write_file(w.root / "xdg-config/oms/config.toml", "[plugin.landlock]\nmax_abi = 3\n");
    auto env = environment_with({{"HOME", w.home},
                                 {"XDG_CONFIG_HOME", w.root / "xdg-config"},
                                 {"XDG_STATE_HOME", w.root / "xdg-state"},
                                 {"PATH", "/usr/bin:/bin"}});
    const std::string marker = w.work + "/ran.txt";
    auto refused = run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work, "--", "sh", "-c",
                                "echo ran > " + marker},
                               {env, std::nullopt, w.work, 60});
    INFO(refused.out << refused.err);
    CHECK(refused.exit_code != 0);
    CHECK(has(refused.err, "ABI 4"));
    CHECK_FALSE(exists(marker));

    auto best = run_process({oms_binary(), "run", "--sandbox", "landlock", "--best-effort", "--worktree", w.work,
                             "--", "sh", "-c", "echo ran > " + marker},
                            {env, std::nullopt, w.work, 60});
    INFO(best.out << best.err);
    CHECK(best.exit_code == 0);
    CHECK(exists(marker));  // positive: best effort runs

    auto doctor = run_process({oms_binary(), "doctor"}, {env, std::nullopt, w.work, 60});
    INFO(doctor.out << doctor.err);
    CHECK(has(doctor.out + doctor.err, "host (landlock ABI 3: filesystem; seccomp)"));
    CHECK(has(doctor.out + doctor.err, "Landlock ABI 4 (TCP ports)"));
    CHECK(has(doctor.out + doctor.err, "Landlock ABI 6 (scopes)"));
}
