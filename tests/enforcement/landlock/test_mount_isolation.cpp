// Mount isolation (issue 9, classes 4 and 9, and WRITE_SCRATCH_TREE):
// metadata changes outside the write roots fail with EROFS, a setuid copy
// cannot reach the host, a HOME below /tmp stays unwritable through the temp
// write root, and scratch trees take writes that never reach the host.
#include "isolation_support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

using namespace oms::test;

namespace {

struct stat stat_of(const std::string& path) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) throw std::runtime_error("cannot stat " + path);
    return st;
}

bool has_test_xattr(const std::string& path) {
    char value[8];
    return getxattr(path.c_str(), "user.oms-test", value, sizeof value) >= 0;
}

void set_old_mtime(const std::string& path) {
    timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
    if (utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) throw std::runtime_error("utimensat " + path);
}

}  // namespace

TEST_CASE("metadata changes outside the write roots fail, inside they work", "[landlock][isolation][class4]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string outside = w.outside + "/file";
        const std::string history = w.home + "/.bash_history";
        const std::string inside = w.work + "/README";
        write_file(history, "HISTORY");
        for (const auto& path : {outside, history, inside}) {
            chmod(path.c_str(), 0644);
            set_old_mtime(path);
        }
        const std::string attack = "chmod 0777 {path}; touch -d 1970-01-02 {path}; {probe} setxattr {path}\n";
        std::string script;
        for (const auto& path : {outside, history, inside}) {
            std::string line = attack;
            for (size_t at; (at = line.find("{path}")) != std::string::npos;) line.replace(at, 6, path);
            script += line;
        }
        auto r = run_confined(driver, w, expand(w, script + "exit 0"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(has(r.err, "Read-only file system"));
        for (const auto& path : {outside, history}) {
            INFO(path);
            auto st = stat_of(path);
            CHECK((st.st_mode & 07777) == 0644);
            CHECK(st.st_mtim.tv_sec == 1000000000);
            CHECK_FALSE(has_test_xattr(path));
        }
        // Positive control: the same three changes inside the worktree.
        auto st = stat_of(inside);
        CHECK((st.st_mode & 07777) == 0777);
        CHECK(st.st_mtim.tv_sec != 1000000000);
        CHECK(has_test_xattr(inside));
        CHECK(read_file(history) == "HISTORY");
    }
}

// As root the attack is a setuid-root copy; as an ordinary user the same
// steps make a copy setuid to that user: either must not reach the host.
TEST_CASE("a setuid copy made in /tmp or outside the write roots never reaches the host",
          "[landlock][isolation][class4]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string copy = "/tmp/" + unique_mark("oms-suid");
        const std::string outside_copy = w.outside + "/suid-sh";
        auto r = run_with_system_temps(driver, w,
                                       "cp /bin/sh " + copy + " && [ -x " + copy + " ] && echo COPY-INSIDE\n"
                                       "chmod 4755 " + copy + " && echo SETUID-INSIDE\n"
                                       "cp /bin/sh " + outside_copy + " && echo COPY-OUTSIDE\n"
                                       "exit 0");
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(has(r.out, "COPY-INSIDE"));        // positive: the private /tmp takes the copy...
        CHECK(access(copy.c_str(), F_OK) != 0);  // ...and the host never sees it
        CHECK_FALSE(has(r.out, "SETUID-INSIDE"));  // the setuid bit is refused everywhere
        CHECK_FALSE(has(r.out, "COPY-OUTSIDE"));
        CHECK(access(outside_copy.c_str(), F_OK) != 0);
    }
}

// Metadata changes stay allowed in the write roots, except the setuid and
// setgid bits: a setuid-root file left in the worktree or a Cargo cache
// would stay on the host. Root's attack; as an ordinary user the same steps
// (setuid to that user) are refused the same way.
TEST_CASE("no setuid or setgid file can be made in a write root", "[landlock][isolation][class4]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string cache = w.toolchain + "/registry/cache";  // a Cargo write root
        make_dirs(cache);
        const std::string copy = cache + "/sh-copy", made = cache + "/made-setuid", in_work = w.work + "/sh-copy";
        const std::string script = "cp /bin/sh " + copy + "; chmod 4755 " + copy + "; chmod g+s " + copy +
                                   "; {probe} create-setuid " + made + "; cp /bin/sh " + in_work +
                                   "; chmod u+s " + in_work + "; chmod 750 " + copy + " && echo CHMOD-OK; exit 0";
        RunOutcome r;
        if (driver == Driver::oms) {
            r = run_in_oms(w, expand(w, script));
        } else {
            RunOptions options;
            options.extra_rules = {{OMS_RULE_WRITE_ALLOW_TREE, w.toolchain + "/registry"}};
            r = run_in_plugin(w, expand(w, script), options);
        }
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(has(r.out, "CHMOD-OK"));  // positive: an ordinary chmod in the write root works
        CHECK((stat_of(copy).st_mode & 07777) == 0750);
        CHECK((stat_of(in_work).st_mode & (S_ISUID | S_ISGID)) == 0);
        CHECK(has(r.out, "DENIED create-setuid"));
        CHECK(access(made.c_str(), F_OK) != 0);
    }
}

TEST_CASE("a HOME below /tmp is not writable through the temp write root", "[landlock][isolation][class9]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w("/tmp");
        const std::string bashrc = w.home + "/.bashrc";
        const std::string user_config = w.home + "/.config/oms/config.toml";
        write_file(bashrc, "BASHRC-ORIGINAL");
        write_file(user_config, "# USER-CONFIG-ORIGINAL\n");
        chmod(bashrc.c_str(), 0644);
        set_old_mtime(bashrc);
        const std::string note = "/tmp/" + unique_mark("oms-note");
        auto r = run_with_system_temps(driver, w,
                                       "echo EVIL >> " + bashrc + "; echo EVIL >> " + user_config +
                                           "; chmod 777 " + bashrc + "; touch " + bashrc +
                                           "\necho OK > " + w.work + "/written && echo WORKTREE-WRITABLE"
                                           "\necho OK > " + note + " && echo TMP-WRITABLE"
                                           "\necho OK > \"$TMPDIR/x\" && cat \"$TMPDIR/x\" && echo TMPDIR-WRITABLE"
                                           "\nexit 0");
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(has(r.out, "WORKTREE-WRITABLE"));  // positive: the worktree below /tmp is writable
        CHECK(has(r.out, "TMP-WRITABLE"));
        CHECK(has(r.out, "TMPDIR-WRITABLE"));
        CHECK(read_file(w.work + "/written") == "OK\n");
        CHECK(read_file(bashrc) == "BASHRC-ORIGINAL");
        CHECK(read_file(user_config) == "# USER-CONFIG-ORIGINAL\n");
        auto st = stat_of(bashrc);
        CHECK((st.st_mode & 07777) == 0644);
        CHECK(st.st_mtim.tv_sec == 1000000000);
        CHECK(access(note.c_str(), F_OK) != 0);
    }
}

TEST_CASE("writes below a scratch tree succeed inside and never reach the host", "[landlock][isolation][scratch]") {
    require_landlock();
    World w;
    const std::string registry = w.toolchain + "/registry";
    const std::string build_rs = registry + "/src/index/crate-1.0/build.rs";
    write_file(build_rs, "BUILD-RS-ORIGINAL");
    make_dirs(registry + "/cache");
    RunOptions options;
    options.extra_rules = {{OMS_RULE_WRITE_ALLOW_TREE, registry}, {OMS_RULE_WRITE_SCRATCH_TREE, registry + "/src"}};
    auto r = run_in_plugin(w,
                           "echo PLANTED > " + build_rs + " && cat " + build_rs +
                               "\nmkdir " + registry + "/src/index/new-crate && echo NEW > " + registry +
                               "/src/index/new-crate/lib.rs && echo EXTRACTED"
                               "\necho CACHED > " + registry + "/cache/crate.crate && echo CACHE-WRITTEN"
                               "\nexit 0",
                           options);
    INFO(r.spawn_error << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has(r.out, "PLANTED"));    // inside, the write took
    CHECK(has(r.out, "EXTRACTED"));  // and Cargo-like extraction works
    CHECK(read_file(build_rs) == "BUILD-RS-ORIGINAL");
    CHECK(access((registry + "/src/index/new-crate").c_str(), F_OK) != 0);
    // Positive control: the download cache beside it is written through.
    CHECK(has(r.out, "CACHE-WRITTEN"));
    CHECK(read_file(registry + "/cache/crate.crate") == "CACHED\n");
    // A second run starts from the host's tree again.
    auto again = run_in_plugin(w, "cat " + build_rs, options);
    CHECK(has(again.out, "BUILD-RS-ORIGINAL"));
}

// A path the overlay options cannot carry (a comma) gets no layer: writes
// there are denied, never let through to the host, and the plan says so.
TEST_CASE("a scratch tree with no overlay possible is read-only", "[landlock][isolation][scratch]") {
    require_landlock();
    World w;
    const std::string registry = w.toolchain + "/registry";
    const std::string tree = registry + "/src,odd";
    const std::string build_rs = tree + "/crate-1.0/build.rs";
    write_file(build_rs, "BUILD-RS-ORIGINAL");
    RunOptions options;
    options.extra_rules = {{OMS_RULE_WRITE_ALLOW_TREE, registry}, {OMS_RULE_WRITE_SCRATCH_TREE, tree}};
    auto r = run_in_plugin(w,
                           "cat " + build_rs + "\necho PLANTED > " + build_rs + " && echo WROTE\necho CACHED > " +
                               registry + "/cache-file && echo CACHE-WRITTEN\nexit 0",
                           options);
    INFO(r.spawn_error << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has(r.out, "BUILD-RS-ORIGINAL"));  // positive: readable
    CHECK(has(r.out, "CACHE-WRITTEN"));      // positive: the write root beside it is written through
    CHECK_FALSE(has(r.out, "WROTE"));
    CHECK(has(r.err, "Read-only file system"));
    CHECK(read_file(build_rs) == "BUILD-RS-ORIGINAL");
    ContextBuilder context = default_context(w, {"sh", "-c", "true"});
    PolicyBuilder policy = default_policy(w);
    for (const auto& [kind, value] : options.extra_rules) policy.add(kind, value);
    CHECK(has(render_text(context, policy), "scratch        " + tree + "  (read-only: no overlay possible here"));
}

TEST_CASE("the plan shows the isolation mounts", "[landlock][isolation][backend]") {
    require_landlock();
    World w;
    const std::string scratch = w.toolchain + "/registry/src";
    make_dirs(scratch);
    ContextBuilder context = default_context(w, {"sh", "-c", "true"});
    PolicyBuilder policy = default_policy(w);
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, w.toolchain + "/registry");
    policy.add(OMS_RULE_WRITE_SCRATCH_TREE, scratch);
    const std::string text = render_text(context, policy);
    INFO(text);
    CHECK(has(text, "read-only      / and every mount below it"));
    CHECK(has(text, "writable       " + w.work));
    CHECK(has(text, "private temp   /tmp"));
    CHECK(has(text, "scratch        " + scratch));
    CHECK(has(text, "own PID namespace"));
}

namespace {

// The plan of a run whose --rw mount is the machine's /tmp: its keypair
// search walks /tmp, where the machine's other programs (other tests) make
// and remove folders; a walk that met one vanishing is a search this test
// did not choose to disturb, and is made again (at most 10 times).
std::string render_walking_host_tmp(ContextBuilder& context, PolicyBuilder& policy) {
    for (int attempt = 1;; ++attempt) {
        FakeHost host;
        LandlockPlugin plugin(host);
        ReportCollector report;
        ErrorBuffer error;
        if (plugin.api().render(plugin.instance(), context.build(), policy.build(), report.sink(), error.get()) ==
            OMS_OK)
            return report.text();
        INFO(error.message());
        REQUIRE(error.message().find("vanished while it was searched") != std::string::npos);
        REQUIRE(attempt < 10);
    }
}

}  // namespace

TEST_CASE("a temp folder the user chose as a --rw mount stays the host's folder", "[landlock][isolation][backend]") {
    // (A worktree that is /tmp takes the same path; it is not used here:
    // the real /tmp's contents are the machine's, not the test's.)
    require_landlock();
    World w;
    ContextBuilder context = default_context(w, {"sh", "-c", "true"});
    ContextBuilder in_tmp = context;
    in_tmp.read_write = {"/tmp"};
    for (auto* c : {&context, &in_tmp}) {
        PolicyBuilder policy = default_policy(w);
        const std::string text = render_walking_host_tmp(*c, policy);
        INFO(text);
        // Positive control: with the world's worktree, /tmp is private.
        CHECK(has(text, "private temp   /tmp  ") == (c == &context));
        CHECK(has(text, "private temp   /var/tmp"));
    }
}
