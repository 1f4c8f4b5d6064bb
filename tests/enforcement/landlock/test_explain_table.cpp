// `oms explain` against what the landlock backend really does: a table of
// targets over the rule kinds (read denies, the denied tree, read roots,
// keypair suffixes, write roots, scratch trees, write denies, nested .git
// names, exec, loopback connect and listen, variables). Each target is explained, then attempted inside one real
// `oms run`; the verdicts must match, and every write the explanation denies
// must leave the host's file as it was.
#include "host_listeners.hpp"
#include "test_support.hpp"

#include <sys/stat.h>

#include <sstream>

using namespace oms::test;

namespace {

struct Target {
    std::string access;  // read, write, exec, connect
    std::string path;    // or 127.0.0.1:PORT
    bool folder = false;
};

void plant_extras(World& w) {
    make_dirs(w.root / "xdg-state");  // made by oms otherwise, after the host's listing of the world's root
    write_file(w.home + "/.cargo/bin/tool-keypair.json", "TOOLCHAIN-KEYPAIR");
    write_file(w.outside + "/deploy-keypair.json", "OUTSIDE-KEYPAIR");
    write_file(w.work + "/sub/.git/config", "NESTED-GIT-CONFIG");
    write_file(w.home + "/.cargo/registry/src/crate-1.0/lib.rs", "EXTRACTED-SOURCE");  // a scratch tree
    write_file(w.home + "/.cargo/registry/cache/crate-1.0.crate", "DOWNLOADED");        // a write root
    write_file(w.home + "/.cargo/registry/cache/dep/.git/config", "CACHED-GIT");         // a .git landlock does not seek
    for (const std::string& dir : {w.work, w.outside, w.other_repo, w.home + "/.cargo/bin"}) {
        const std::string script = dir + "/run.sh";
        write_file(script, "#!/bin/sh\necho RAN-MARKER\n");
        chmod(script.c_str(), 0755);
    }
}

std::vector<Target> table(const World& w, uint16_t closed_port) {
    const std::string h = w.home, k = w.work, o = w.outside;
    return {
        {"read", h + "/.ssh/id_rsa"},           {"read", h + "/.aws/credentials"},
        {"read", h + "/.netrc"},                {"read", h + "/.config/solana/id.json"},
        {"read", w.other_repo + "/main.rs"},    {"read", h + "/.cargo/bin/tool-marker"},
        {"read", h + "/.cargo/bin/tool-keypair.json"}, {"read", k + "/README"},
        {"read", k + "/wallet-keypair.json"},   {"read", k + "/nested/deeper/id.json"},
        {"read", o + "/file"},                  {"read", o + "/deploy-keypair.json"},
        {"read", "/etc/passwd"},                {"read", k + "/.git/config"},
        {"read", w.pinned},                     {"read", h, true},
        {"read", h + "/.ssh", true},            {"read", w.other_repo, true},
        {"read", k + "/nested", true},          {"read", o, true},
        // Listing is not reading: `/` and the folder holding HOME list as on the host.
        {"read", "/", true},                    {"read", w.root.path(), true},
        {"read", h + "/.cargo", true},
        {"write", k + "/README"},               {"write", k + "/created.txt"},
        {"write", k + "/.git/config"},          {"write", w.pinned},
        {"write", k + "/sub/.git/config"},      {"write", k + "/wallet-keypair.json"},
        {"write", o + "/file"},                 {"write", w.other_repo + "/main.rs"},
        {"write", h + "/.ssh/id_rsa"},          {"write", h + "/.cargo/bin/tool-marker"},
        {"write", h + "/new-in-home"},          {"exec", k + "/run.sh"},
        {"exec", o + "/run.sh"},                {"exec", w.other_repo + "/run.sh"},
        {"exec", h + "/.cargo/bin/run.sh"},     {"connect", "127.0.0.1:8899"},
        {"connect", "127.0.0.1:" + std::to_string(closed_port)},
        // Listening (no trusted listener here): any port of the private loopback but the relayed one.
        {"listen", "127.0.0.1:8899"},           {"listen", "127.0.0.1:" + std::to_string(closed_port)},
        // Read before the write below changes it (the host's copy is the reference).
        {"read", h + "/.cargo/registry/cache/crate-1.0.crate"},
        {"write", h + "/.cargo/registry/src/crate-1.0/lib.rs"},  {"write", h + "/.cargo/registry/cache/crate-1.0.crate"},
        {"write", h + "/.cargo/registry/cache/dep/.git/config"},  {"env", "PATH"},
        {"env", "OMS_TEST_PARENT_SECRET"},
    };
}

// One shell attempt per target; prints "T<i> <rc> <output on one line>".
std::string attempt(const Target& t, size_t i) {
    const std::string q = "'" + t.path + "'";
    std::string command;
    if (t.access == "read") command = t.folder ? "ls -A " + q : "cat " + q;
    if (t.access == "write") command = "printf CHANGED >> " + q;
    if (t.access == "exec") command = q;
    if (t.access == "env") command = "printenv " + t.path;
    if (t.access == "connect" || t.access == "listen") {
        const size_t colon = t.path.rfind(':');
        command = "'" + probe_tool() + (t.access == "connect" ? "' connect " + t.path.substr(0, colon) + " " : "' bind-tcp ") +
                  t.path.substr(colon + 1);
    }
    return "out=$( (" + command + ") 2>&1 ); rc=$?; printf 'T" + std::to_string(i) +
           " %s %s\\n' \"$rc\" \"$(printf %s \"$out\" | tr '\\n' ' ')\"\n";
}

struct Attempt {
    int rc = -1;
    std::string text;
};

std::vector<Attempt> parse_attempts(const std::string& out, size_t count) {
    std::vector<Attempt> found(count);
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] != 'T') continue;
        std::istringstream fields(line.substr(1));
        size_t i = 0;
        Attempt a;
        fields >> i >> a.rc;
        std::getline(fields, a.text);
        if (!a.text.empty() && a.text[0] == ' ') a.text.erase(0, 1);
        if (i < count) found[i] = a;
    }
    return found;
}

bool has(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// What the sandbox really did, in explain's words. `host` is the same
// attempt made without a sandbox (what an allowed read shows).
std::string observed(const Target& t, const Attempt& inside, const Attempt& host) {
    if (t.access == "write" || t.access == "env") return inside.rc == 0 ? "allowed" : "denied";
    if (t.access == "connect") return has(inside.text, "OK reply") ? "allowed" : "denied";
    if (t.access == "listen") return has(inside.text, "OK bind") ? "allowed" : "denied";
    if (t.access == "exec") {
        if (has(inside.text, "RAN-MARKER")) return "allowed";
        if (has(inside.text, "Permission denied")) return "denied";
        return "hidden";  // not found, or an empty file ran
    }
    if (inside.rc == 0) return inside.text == host.text ? "allowed" : "hidden";
    if (has(inside.text, "Permission denied")) return "denied";
    if (has(inside.text, "No such file")) return "hidden";
    return "unclear: " + inside.text;
}

// The verdicts `oms explain --json` gives, in target order.
std::vector<std::string> explained(const World& w, const std::string& access, const std::vector<std::string>& targets) {
    std::vector<std::string> argv{oms_binary(), "explain", "--sandbox", "landlock", "--worktree", w.work,
                                  "--pinned",   w.pinned,  "--json",    access};
    argv.insert(argv.end(), targets.begin(), targets.end());
    auto r = run_process(argv, {oms_world_env(w), std::nullopt, w.work, 60});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::vector<std::string> verdicts;
    const std::string key = "\"verdict\":\"";
    for (size_t at = r.out.find(key); at != std::string::npos; at = r.out.find(key, at + 1)) {
        const size_t start = at + key.size();
        verdicts.push_back(r.out.substr(start, r.out.find('"', start) - start));
    }
    REQUIRE(verdicts.size() == targets.size());
    return verdicts;
}

std::map<std::string, std::string> host_contents(const std::vector<Target>& targets) {
    std::map<std::string, std::string> out;
    for (const Target& t : targets)
        if (t.access == "write") out[t.path] = exists(t.path) ? read_file(t.path) : std::string("<absent>");
    return out;
}

}  // namespace

TEST_CASE("oms explain gives the verdicts the landlock backend really enforces", "[landlock][explain]") {
    require_landlock();
    REQUIRE(oms_run_available());
    HostListeners host;
    INFO("port 8899 stayed busy on this machine; the test needs it free");
    REQUIRE(host.listen_everywhere(8899));
    const uint16_t closed_port = host.listen_any_port();  // answers outside, no rule names it
    World w;
    plant_extras(w);
    const auto targets = table(w, closed_port);
    REQUIRE(targets.size() >= 30);

    std::map<std::string, std::vector<std::string>> by_access;
    for (const Target& t : targets) by_access[t.access].push_back(t.path);
    std::map<std::string, std::vector<std::string>> verdicts;
    for (auto& [access, paths] : by_access) verdicts[access] = explained(w, access, paths);

    std::string script, host_script;
    for (size_t i = 0; i < targets.size(); ++i) {
        script += attempt(targets[i], i);
        if (targets[i].access == "read" || targets[i].access == "exec") host_script += attempt(targets[i], i);
    }
    const auto before = host_contents(targets);
    const auto host_run = run_process({"/bin/sh", "-c", host_script}, {{}, std::nullopt, w.work, 60});
    const RunOutcome inside = run_in_oms(w, script + "exit 0\n");
    INFO(inside.err);
    REQUIRE(inside.exit_code == 0);
    const auto attempts = parse_attempts(inside.out, targets.size());
    const auto host_attempts = parse_attempts(host_run.out, targets.size());

    std::map<std::string, size_t> next;
    std::map<std::string, int> seen;
    for (size_t i = 0; i < targets.size(); ++i) {
        const Target& t = targets[i];
        const std::string said = verdicts[t.access][next[t.access]++];
        const std::string did = observed(t, attempts[i], host_attempts[i]);
        INFO(t.access << " " << t.path << ": explain says " << said << ", the sandbox did " << did << " (rc "
                      << attempts[i].rc << ": " << attempts[i].text << ")");
        CHECK(said == did);
        ++seen[did];
        if (t.access == "write" && said != "allowed") CHECK(host_contents({t}).at(t.path) == before.at(t.path));
        // Writes into a scratch tree are allowed and thrown away: the host keeps its file.
        const bool scratch = t.path.find("/registry/src/") != std::string::npos;
        if (t.access == "write" && said == "allowed")
            CHECK((read_file(t.path).find("CHANGED") != std::string::npos) == !scratch);
    }
    // The table covers every verdict (a sandbox that allowed or denied all
    // could not pass).
    CHECK(seen["allowed"] >= 10);
    CHECK(seen["denied"] >= 10);
    CHECK(seen["hidden"] >= 5);
}

TEST_CASE("after a failure under landlock oms says how to ask, on stderr only, once", "[landlock][explain]") {
    require_landlock();
    World w;
    auto run = [&](const std::vector<std::string>& flags, const std::string& script) {
        std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work};
        argv.insert(argv.end(), flags.begin(), flags.end());
        for (const std::string& word : {std::string("--"), std::string("sh"), std::string("-c"), script})
            argv.push_back(word);
        // A variable of the caller's that the command does not get (one tools
        // read, so named before the caller's others, whatever else the
        // environment holds: ASAN_OPTIONS under the sanitizer pass), and a
        // credential that must not even be named.
        std::vector<std::string> env = oms_world_env(w);
        env.push_back("PYTHONPATH=src");
        env.push_back("GITHUB_TOKEN=do-not-name-it");
        return run_process(argv, {env, std::nullopt, w.work, 60});
    };
    auto failed = run({}, "echo OUT; echo x > " + w.outside + "/file; exit 3");
    CHECK(failed.exit_code == 3);
    CHECK(failed.out == "OUT\n");  // the command's output, nothing of oms's
    const std::string hint = "oms: exit 3 under the landlock sandbox; ";
    const auto hints = lines_starting(failed.err, hint);
    REQUIRE(hints.size() == 1);
    // The world's hidden keypairs first (a read of one fails), then the variables.
    CHECK(hints[0].find("hidden from commands") < hints[0].find("not passed from your environment: "));
    CHECK(hints[0].find("PYTHONPATH") < hints[0].find("(--env NAME passes one)"));
    CHECK(failed.err.find("(--env NAME passes one); if a file or port was refused, ask: oms explain "
                          "read|write|exec|connect|env TARGET") != std::string::npos);
    CHECK(failed.err.find("GITHUB_TOKEN") == std::string::npos);
    CHECK(failed.err.find("do-not-name-it") == std::string::npos);
    CHECK(failed.err.find("Read-only file system") < failed.err.find(hint));  // after the command's own lines
    // Positive control: a success and a signal the user sent say nothing, nor does --quiet.
    auto fine = run({}, "echo OUT");
    CHECK(fine.exit_code == 0);
    CHECK(fine.err.find("oms explain") == std::string::npos);
    auto interrupted = run({}, "kill -TERM $$");
    CHECK(interrupted.exit_code == 143);
    CHECK(interrupted.err.find("oms explain") == std::string::npos);
    auto quiet = run({"--quiet"}, "exit 4");  // a status not seen yet: only --quiet keeps it silent
    CHECK(quiet.exit_code == 4);
    CHECK(quiet.err.find("oms explain") == std::string::npos);
}

TEST_CASE("the line after a failure: said once per status, not after a tool's answer, and naming the read-only .git",
          "[landlock][explain]") {
    require_landlock();
    World w;
    auto run = [&](const std::string& script) {
        return run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work, "--", "sh", "-c",
                            script},
                           {oms_world_env(w), std::nullopt, w.work, 60});
    };
    const std::string hint = "oms: exit 5 under the landlock sandbox";
    auto first = run("exit 5");
    CHECK(first.exit_code == 5);
    CHECK(lines_starting(first.err, hint).size() == 1);
    auto again = run("exit 5");  // the same failure again: nothing new to say
    CHECK(again.exit_code == 5);
    CHECK(again.err.find("oms explain") == std::string::npos);
    auto other = run("exit 6");  // positive control: a new status is said
    CHECK(lines_starting(other.err, "oms: exit 6 under the landlock sandbox").size() == 1);
    // grep's 1 means "no match": an answer, not a failure.
    write_file(w.work + "/haystack.txt", "hay\n");
    auto no_match = run("grep -q needle haystack.txt");
    CHECK(no_match.exit_code == 1);
    CHECK(no_match.err.find("oms: exit") == std::string::npos);
    // A git write fails on the read-only .git: the line says why, each time.
    for (int attempt = 0; attempt < 2; ++attempt) {
        auto commit = run("git add haystack.txt && git commit -qm work");
        CHECK(commit.exit_code != 0);
        CHECK(lines_starting(commit.err, "oms: exit").size() == 1);
        CHECK(commit.err.find("the task's .git is read-only inside the sandbox by design") != std::string::npos);
        CHECK(commit.err.find("Committing an agent's work") != std::string::npos);
    }
    CHECK(read_file(w.work + "/.git/config") == "GIT-CONFIG-ORIGINAL");
}

TEST_CASE("oms policy lists the keypair files hidden; a user-level exemption reopens one, never from a worktree",
          "[landlock][explain]") {
    require_landlock();
    World w;
    const std::string locale = w.work + "/node_modules/pkg/locales/id.json";
    write_file(locale, "LOCALE-ID-JSON");
    const std::string config = w.root / "xdg-config/oms/config.toml";
    auto policy = [&] {
        return run_process({oms_binary(), "policy", "--sandbox", "landlock", "--worktree", w.work},
                           {oms_world_env(w), std::nullopt, w.work, 60});
    };

    SECTION("the listing names each hidden file") {
        auto r = policy();
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.find("keypair files hidden (suffix rules, found at run start): 3") != std::string::npos);
        for (const std::string& file : {w.work + "/wallet-keypair.json", w.work + "/nested/deeper/id.json", locale})
            CHECK(lines_starting(r.out, "  hidden         " + file).size() == 1);
    }

    SECTION("the user's keypair_exempt reopens the locale file only") {
        write_file(config, read_file(config) + "[plugin.secret-deny]\nkeypair_exempt = [\"node_modules/**/locales/id.json\"]\n");
        auto listing = policy();
        CHECK(lines_starting(listing.out, "  exempt         " + locale).size() == 1);
        CHECK(lines_starting(listing.out, "  hidden         " + locale).empty());
        CHECK(listing.out.find("keypair_exempt (user config): node_modules/**/locales/id.json") != std::string::npos);
        auto r = run_in_oms(w, expand(w, "cat " + locale + "; echo; cat {work}/wallet-keypair.json; echo; "
                                         "cat {work}/nested/deeper/id.json; echo END"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.find("LOCALE-ID-JSON") != std::string::npos);  // exempt: readable
        CHECK(r.out.find(kKeypair) == std::string::npos);          // positive control: still hidden
        CHECK(r.out.find(kSolanaId) == std::string::npos);         // the same suffix elsewhere: still hidden
        CHECK(r.out.find("END") != std::string::npos);
    }

    SECTION("a worktree config cannot set it") {
        write_file(w.work + "/.oms/config.toml", "[plugin.secret-deny]\nkeypair_exempt = [\"wallet-keypair.json\"]\n");
        auto r = run_in_oms(w, expand(w, "cat {work}/wallet-keypair.json; touch {work}/ran"));
        CHECK(r.exit_code == 78);
        CHECK(r.err.find("keypair_exempt") != std::string::npos);
        CHECK(r.err.find("user config") != std::string::npos);
        CHECK(r.out.find(kKeypair) == std::string::npos);
        CHECK_FALSE(exists(w.work + "/ran"));  // nothing ran
    }
}
