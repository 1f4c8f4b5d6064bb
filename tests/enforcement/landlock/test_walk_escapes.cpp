// The worktree walk across runs: run 1 prepares, run 2 strikes.
//  - A keypair folder made unreadable (chmod 000, 0400, 0100) by run 1 still
//    has its keypair masked in run 2: as an ordinary user the walk gives the
//    folder back its owner's rights and searches it; as root the walk reads
//    it anyway (CAP_DAC_READ_SEARCH) and must still list it.
//  - Every .git found in the worktree (a nested repository's folder, a
//    submodule's .git file, what a .git link leads to in the worktree) is
//    read-only and stays in place; the files beside it stay writable.
#include "test_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

using namespace oms::test;

namespace {

const char* const kDeployKey = "DEPLOY-KEYPAIR-SECRET-77e1";

mode_t mode_of(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 07777;
}

}  // namespace

TEST_CASE("a keypair folder made unreadable in one run is still masked in the next", "[landlock][walk]") {
    require_landlock();
    struct Attack {
        const char* name;
        const char* prepare;  // run 1, in the worktree
        const char* hidden;   // the folder left unreadable
        const char* mode;     // run 2 gives it back
        const char* key;      // where the keypair is then
        const char* says = nullptr;       // what run 1 must print besides
        const char* neighbour = nullptr;  // where prog.so is then (default: beside the key)
    };
    const Attack attacks[] = {
        // The folders above a masked keypair are mount points in the run:
        // the rename is refused (EXDEV across the mount), mv copies what it
        // can and removes it, the masked key can be neither: it stays put.
        {"folder moved into a mode 000 folder",
         "mkdir h && { mv target/deploy h/ 2>/dev/null || echo MOVE-REFUSED; } && chmod 000 h", "h", "755",
         "target/deploy/prog-keypair.json", "MOVE-REFUSED", "h/deploy/prog.so"},
        {"keypair folder mode 000", "chmod 000 target/deploy", "target/deploy", "755",
         "target/deploy/prog-keypair.json"},
        {"keypair folder listable, not searchable", "chmod 400 target/deploy", "target/deploy", "755",
         "target/deploy/prog-keypair.json"},
        {"keypair folder searchable, not listable", "chmod 100 target/deploy", "target/deploy", "755",
         "target/deploy/prog-keypair.json"},
    };
    for (const Attack& attack : attacks) {
        DYNAMIC_SECTION(attack.name) {
            FOR_EACH_DRIVER(driver) {
                World w;
                write_file(w.work + "/target/deploy/prog-keypair.json", kDeployKey);
                write_file(w.work + "/target/deploy/prog.so", "PROGRAM-BINARY");
                auto prepare = run_confined(driver, w, std::string("cd ") + w.work + " && " + attack.prepare +
                                                           " && echo PREPARED");
                INFO(prepare.spawn_error << prepare.out << prepare.err);
                REQUIRE(prepare.out.find("PREPARED") != std::string::npos);
                if (attack.says) CHECK(prepare.out.find(attack.says) != std::string::npos);
                // The host now holds the folder as run 1 left it.
                REQUIRE(mode_of(w.work + "/" + attack.hidden) != 0755);

                auto strike = run_confined(
                    driver, w,
                    expand(w, std::string("cd {work} && chmod ") + attack.mode + " " + attack.hidden + "; cat " +
                                  attack.key + "; echo; cat README; echo; cat " +
                                  (attack.neighbour ? std::string(attack.neighbour)
                                                    : std::string(attack.key).replace(
                                                          std::string(attack.key).rfind('/') + 1, std::string::npos,
                                                          "prog.so")) +
                                  "; cat h/deploy/prog-keypair.json 2>/dev/null; echo; exit 0"));
                INFO(strike.spawn_error << strike.out << strike.err);
                REQUIRE(strike.exit_code == 0);
                CHECK(strike.out.find(kDeployKey) == std::string::npos);
                CHECK(strike.out.find("WORKTREE-README") != std::string::npos);  // positive: the worktree reads
                CHECK(strike.out.find("PROGRAM-BINARY") != std::string::npos);   // positive: its neighbour too
                // The key is still there, untouched, for the user.
                chmod((w.work + "/" + attack.hidden).c_str(), 0755);
                CHECK(read_file(w.work + "/" + attack.key) == kDeployKey);
            }
        }
    }
}

TEST_CASE("a plain keypair is masked and its folder left as it was (positive control)", "[landlock][walk]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        write_file(w.work + "/target/deploy/prog-keypair.json", kDeployKey);
        chmod((w.work + "/target/deploy").c_str(), 0750);
        auto r = run_confined(driver, w, expand(w, "cat {work}/target/deploy/prog-keypair.json; echo; exit 0"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.find(kDeployKey) == std::string::npos);
        CHECK(mode_of(w.work + "/target/deploy") == 0750);  // a readable folder is never changed
    }
}

TEST_CASE("nested .git folders and submodule .git files are read-only; files beside them are not",
          "[landlock][walk]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        write_file(w.work + "/sub/.git/hooks/pre-commit", "ORIGINAL-HOOK");
        write_file(w.work + "/sub/.git/config", "SUB-CONFIG");
        write_file(w.work + "/sub/file", "SUB-FILE");
        write_file(w.work + "/vendor/lib/.git", "gitdir: ../../.git/modules/lib");
        write_file(w.work + "/vendor/lib/code.rs", "CODE");
        write_file(w.work + "/real-git/hooks/pre-push", "LINKED-HOOK");  // what a .git link leads to
        make_dirs(w.work + "/linked");
        REQUIRE(symlink("../real-git", (w.work + "/linked/.git").c_str()) == 0);
        auto r = run_confined(driver, w, expand(w, R"SH(
            cd {work}
            echo evil > linked/.git/hooks/pre-push; echo evil > real-git/hooks/pre-push
            echo evil > sub/.git/hooks/pre-commit; echo evil > sub/.git/hooks/post-checkout
            chmod 777 sub/.git/hooks/pre-commit; rm -f sub/.git/config
            mv sub/.git sub/git-moved; mv sub sub-moved
            echo 'gitdir: /tmp/evil' > vendor/lib/.git; rm -f vendor/lib/.git; mv vendor/lib vendor/lib2
            echo changed > sub/file && echo WROTE-SUB-FILE
            echo changed > vendor/lib/code.rs && echo WROTE-VENDOR
            mkdir sub/.git/hooks/x 2>/dev/null; exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_file(w.work + "/sub/.git/hooks/pre-commit") == "ORIGINAL-HOOK");
        CHECK((mode_of(w.work + "/sub/.git/hooks/pre-commit") & 0111) == 0);
        CHECK_FALSE(exists(w.work + "/sub/.git/hooks/post-checkout"));
        CHECK_FALSE(exists(w.work + "/sub/.git/hooks/x"));
        CHECK(read_file(w.work + "/sub/.git/config") == "SUB-CONFIG");
        CHECK_FALSE(exists(w.work + "/sub/git-moved"));
        CHECK_FALSE(exists(w.work + "/sub-moved"));
        CHECK(read_file(w.work + "/vendor/lib/.git") == "gitdir: ../../.git/modules/lib");
        CHECK_FALSE(exists(w.work + "/vendor/lib2"));
        CHECK(read_file(w.work + "/real-git/hooks/pre-push") == "LINKED-HOOK");
        // positive controls: the files beside them are writable
        CHECK(read_file(w.work + "/sub/file") == "changed\n");
        CHECK(read_file(w.work + "/vendor/lib/code.rs") == "changed\n");
    }
}
