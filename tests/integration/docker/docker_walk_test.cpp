// The worktree search across commands, on the real daemon, one-shot and warm:
//  - the container's user (uid 1000 under root, the caller otherwise) hides a keypair from the next search
//    (mkdir h; mv target/deploy h/; chmod 000 h) and the next command
//    restores the mode to read it. A caller who can read the folder (root)
//    finds and masks the keypair; a caller who can neither read nor repair it
//    (root without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH/CAP_FOWNER: an
//    ordinary user, as far as the files of uid 1000 are concerned) stops
//    the run, naming the folder. Run as an ordinary user, the caller owns
//    the folder: oms restores its owner's rights and searches it. The key
//    never comes out in any case.
//  - a nested repository's .git and a submodule's .git file are read-only;
//    the files beside them are not.
#include "docker_fixture.hpp"

#include <catch2/catch.hpp>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

const char* const kKey = "SECRETKEY";

// Drops the capabilities that let root pass over file modes from this
// process's effective set for its lifetime (they stay permitted, and are
// raised again at the end). The docker CLI started meanwhile gets root's
// full set again at exec.
class WithoutFileModeOverride {
public:
    WithoutFileModeOverride() {
        REQUIRE(syscall(SYS_capget, &header_, saved_) == 0);
        __user_cap_data_struct lowered[2] = {saved_[0], saved_[1]};
        for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER}) lowered[0].effective &= ~(1u << cap);
        REQUIRE(syscall(SYS_capset, &header_, lowered) == 0);
    }
    ~WithoutFileModeOverride() { syscall(SYS_capset, &header_, saved_); }
    WithoutFileModeOverride(const WithoutFileModeOverride&) = delete;
    WithoutFileModeOverride& operator=(const WithoutFileModeOverride&) = delete;

private:
    __user_cap_header_struct header_{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct saved_[2]{};
};

mode_t mode_of(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 07777;
}

uid_t owner_of(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? st.st_uid : uid_t(-1);
}

}  // namespace

TEST_CASE("docker: a keypair folder the container made unreadable is never skipped", "[docker][walk]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    Task task(warm);
    // The container makes the folders; the task's keypair and its neighbour
    // are copied in from the host (target/deploy, which holds the task's
    // keypair, is pinned in the container: it cannot be moved there), and
    // the folder closed.
    Outcome prepare = task.sh("mkdir -p h/deploy && echo PREPARED");
    INFO(prepare.error << prepare.out << prepare.err);
    REQUIRE(prepare.out.find("PREPARED") != std::string::npos);
    for (const char* name : {"prog-keypair.json", "prog.json"})
        write_file(task.worktree + "/h/deploy/" + name, read_file(task.worktree + "/target/deploy/" + name));
    REQUIRE(chmod((task.worktree + "/h").c_str(), 0) == 0);
    REQUIRE(owner_of(task.worktree + "/h") == container_uid());
    REQUIRE(mode_of(task.worktree + "/h") == 0);
    const std::string strike = "chmod 755 h; cat h/deploy/prog-keypair.json; echo; cat README; cat h/deploy/prog.json";

    // As an ordinary user the container runs as the caller, who owns the
    // folder: oms gives it its owner's rights back and searches it.
    if (geteuid() != 0) {
        Outcome o = task.sh(strike);
        INFO(o.error << o.out << o.err);
        REQUIRE(o.status == OMS_OK);
        CHECK(o.out.find(kKey) == std::string::npos);
        CHECK(o.out.find("readme") != std::string::npos);
        CHECK(o.out.find("public") != std::string::npos);
    } else SECTION("a caller that cannot read or repair the folder stops the run, naming it") {
        Outcome o;
        {
            WithoutFileModeOverride ordinary;
            o = task.sh(strike);
        }
        INFO(o.error << o.out << o.err);
        CHECK(o.status != OMS_OK);
        CHECK(o.error.find(task.worktree + "/h cannot be read") != std::string::npos);
        CHECK(o.out.find(kKey) == std::string::npos);
        CHECK(mode_of(task.worktree + "/h") == 0);  // the command never ran
        // positive control: once the folder is readable again the run goes
        // ahead, with the keypair masked and its neighbour readable. (With
        // full capabilities: root without CAP_FOWNER cannot hand a warm
        // container's socket folder over, which no real caller is.)
        REQUIRE(chmod((task.worktree + "/h").c_str(), 0755) == 0);
        o = task.sh(strike);
        INFO(o.error << o.out << o.err);
        CHECK(o.status == OMS_OK);
        CHECK(o.out.find(kKey) == std::string::npos);
        CHECK(o.out.find("readme") != std::string::npos);
        CHECK(o.out.find("public") != std::string::npos);
    }

    if (geteuid() == 0) SECTION("a caller that can read the folder finds the keypair; the container cannot check its pin there") {
        // The keypair's folders are pinned and checked by the runner, which
        // runs as the container's user: the closed folder is the command's
        // own (it could open it again), so the run stops instead.
        Outcome o = task.sh(strike);
        INFO(o.error << o.out << o.err);
        CHECK((o.status != OMS_OK || o.exit_code != 0));
        CHECK(o.out.find(kKey) == std::string::npos);
        if (!warm) CHECK_THAT(o.err, Catch::Contains("/h/deploy cannot be checked in the container"));
        CHECK(mode_of(task.worktree + "/h") == 0);  // the command never ran
        // positive control: once the folder is open, the keypair is masked
        // and its neighbour reads.
        REQUIRE(chmod((task.worktree + "/h").c_str(), 0755) == 0);
        o = task.sh(strike);
        INFO(o.error << o.out << o.err);
        REQUIRE(o.status == OMS_OK);
        CHECK(o.out.find(kKey) == std::string::npos);
        CHECK(o.out.find("readme") != std::string::npos);  // positive: the worktree reads
        CHECK(o.out.find("public") != std::string::npos);  // and the keypair's neighbour too
    }
    CHECK(read_file(task.worktree + "/h/deploy/prog-keypair.json") == "[1,2,3,SECRETKEY]\n");  // intact
}

TEST_CASE("docker: nested .git folders and submodule .git files are read-only", "[docker][walk]") {
    require_daemon();
    const bool warm = GENERATE(false, true);
    CAPTURE(warm);
    Task task(warm);
    write_file(task.worktree + "/sub/.git/hooks/pre-commit", "ORIGINAL-HOOK\n");
    write_file(task.worktree + "/sub/file", "SUB-FILE\n");
    write_file(task.worktree + "/vendor/lib/.git", "gitdir: ../../.git/modules/lib\n");
    write_file(task.worktree + "/vendor/lib/code.rs", "CODE\n");
    if (geteuid() == 0)  // the container user's, like the rest (an ordinary caller owns them already)
        for (const char* p : {"/sub", "/sub/.git", "/sub/.git/hooks", "/sub/.git/hooks/pre-commit", "/sub/file",
                              "/vendor", "/vendor/lib", "/vendor/lib/.git", "/vendor/lib/code.rs"})
            REQUIRE(chown((task.worktree + p).c_str(), container_uid(), container_uid()) == 0);
    Outcome o = task.sh(
        "echo evil > sub/.git/hooks/pre-commit; echo evil > sub/.git/hooks/post-checkout; "
        "chmod 777 sub/.git/hooks/pre-commit; rm -f sub/.git/hooks/pre-commit; mv sub/.git sub/git-moved; "
        "echo 'gitdir: /tmp/evil' > vendor/lib/.git; rm -f vendor/lib/.git; "
        "echo changed > sub/file && echo WROTE-SUB; echo changed > vendor/lib/code.rs && echo WROTE-VENDOR");
    INFO(o.error << o.out << o.err);
    REQUIRE(o.status == OMS_OK);
    CHECK(read_file(task.worktree + "/sub/.git/hooks/pre-commit") == "ORIGINAL-HOOK\n");
    CHECK((mode_of(task.worktree + "/sub/.git/hooks/pre-commit") & 0111) == 0);
    CHECK_FALSE(exists(task.worktree + "/sub/.git/hooks/post-checkout"));
    CHECK_FALSE(exists(task.worktree + "/sub/git-moved"));
    CHECK(read_file(task.worktree + "/vendor/lib/.git") == "gitdir: ../../.git/modules/lib\n");
    // positive controls: the files beside them are written
    CHECK(read_file(task.worktree + "/sub/file") == "changed\n");
    CHECK(read_file(task.worktree + "/vendor/lib/code.rs") == "changed\n");
}
