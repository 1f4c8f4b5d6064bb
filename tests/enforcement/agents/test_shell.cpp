// oms sh: behaves as sh -c (status, signals, stdin, stdout, stderr), runs
// confined in the current folder's worktree, keeps nothing but the worktree
// between calls; an agent's read-only folder under HOME comes in by name
// through [plugin.toolchain-roots] extra.
#include "../landlock/test_support.hpp"
#include "agent_world.hpp"

#include <signal.h>

#include <algorithm>

using namespace oms::test;

namespace {

// stderr without oms's own lines (the world's keypair files get a warning each run).
std::string without_oms_lines(const std::string& text) {
    std::string kept;
    for (size_t start = 0; start < text.size();) {
        const size_t end = std::min(text.find('\n', start), text.size());
        if (text.compare(start, 5, "oms: ") != 0) kept += text.substr(start, end + 1 - start);
        start = end + 1;
    }
    return kept;
}

ProcessResult oms_sh(const World& world, const std::vector<std::string>& args,
                     const std::optional<std::string>& stdin_text = std::nullopt) {
    std::vector<std::string> argv{oms_binary(), "sh"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_in_world(world, argv, stdin_text);
}

}  // namespace

TEST_CASE("oms sh -c has sh -c's status, stdio and arguments", "[agents][sh]") {
    require_landlock();
    World w;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"-c", "echo out; echo err >&2; exit 7"},
          std::vector<std::string>{"-c", "printf '%s|' \"$0\" \"$@\"", "name", "one", "two words"},
          std::vector<std::string>{"-c", "kill -TERM $$"}, std::vector<std::string>{"-c", "tr a-z A-Z"}}) {
        std::vector<std::string> plain{"/bin/sh"};
        plain.insert(plain.end(), args.begin(), args.end());
        const ProcessResult expected = run_in_world(w, plain, std::string("piped text\n"));
        const ProcessResult r = oms_sh(w, args, std::string("piped text\n"));
        INFO(args[1] << "\nexpected: " << expected.exit_code << " " << expected.out << expected.err
                     << "\ngot: " << r.exit_code << " " << r.out << r.err);
        CHECK(r.exit_code == expected.exit_code);
        CHECK(r.out == expected.out);
        CHECK(without_oms_lines(r.err) == expected.err);
        CHECK(r.err.find("oms: exit") == std::string::npos);  // --quiet: no hint of oms's own after a failure
    }
    CHECK(run_in_world(w, {"/bin/sh", "-c", "kill -TERM $$"}).exit_code == 128 + SIGTERM);  // the control
}

TEST_CASE("oms sh runs confined: secrets hidden, the worktree writable", "[agents][sh]") {
    require_landlock();
    World w;
    const ProcessResult r = oms_sh(w, {"-c", "cat " + w.home + "/.ssh/id_rsa; echo sh-wrote > sh-output.txt; cat README"});
    INFO(r.out << r.err);
    CHECK(r.out.find(kSshKey) == std::string::npos);
    CHECK(r.err.find(kSshKey) == std::string::npos);
    CHECK(r.out.find("WORKTREE-README") != std::string::npos);
    CHECK(read_file(w.work + "/sh-output.txt") == "sh-wrote\n");
}

TEST_CASE("between two oms sh calls only the worktree persists", "[agents][sh]") {
    require_landlock();
    World w;
    const ProcessResult first =
        oms_sh(w, {"-c", "export LEFT=1; echo in-home > \"$HOME/left\"; echo in-tmp > \"$TMPDIR/left\"; "
                         "echo in-work > left; cd /"});
    INFO(first.out << first.err);
    REQUIRE(first.exit_code == 0);
    const ProcessResult second = oms_sh(w, {"-c", "echo \"LEFT=$LEFT\"; cat \"$HOME/left\" \"$TMPDIR/left\" left; pwd"});
    INFO(second.out << second.err);
    CHECK(second.out.find("LEFT=\n") != std::string::npos);
    CHECK(second.out.find("in-home") == std::string::npos);
    CHECK(second.out.find("in-tmp") == std::string::npos);
    CHECK(second.out.find("in-work") != std::string::npos);  // the worktree does persist
    CHECK(second.out.find(w.work + "\n") != std::string::npos);
}

TEST_CASE("an agent's snapshot folder under HOME comes in by name, read-only", "[agents][sh]") {
    require_landlock();
    World w;
    const std::string snapshots = w.home + "/.claude/shell-snapshots";
    write_file(snapshots + "/snapshot-bash-1.sh", "greet() { echo SNAPSHOT-OK; }\n");
    write_file(w.home + "/.claude/.credentials.json", "CLAUDE-TOKEN-0c0c");
    const std::string command = ". " + snapshots + "/snapshot-bash-1.sh && greet; cat " + w.home +
                                "/.claude/.credentials.json; echo changed >> " + snapshots + "/snapshot-bash-1.sh";

    const ProcessResult without = oms_sh(w, {"-c", command});
    INFO(without.out << without.err);
    CHECK(without.out.find("SNAPSHOT-OK") == std::string::npos);
    CHECK(without.err.find("No such file") != std::string::npos);

    add_user_config(w, "[plugin.toolchain-roots]\nextra = [\"~/.claude/shell-snapshots\"]");
    const ProcessResult with = oms_sh(w, {"-c", command});
    INFO(with.out << with.err);
    CHECK(with.out.find("SNAPSHOT-OK") != std::string::npos);
    CHECK(with.out.find("CLAUDE-TOKEN-0c0c") == std::string::npos);  // the rest of ~/.claude stays hidden
    CHECK(read_file(snapshots + "/snapshot-bash-1.sh") == "greet() { echo SNAPSHOT-OK; }\n");  // read-only
}
