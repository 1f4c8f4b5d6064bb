// The sweep of abandoned run folders as an ordinary user, for whom a folder
// its command made unreadable (chmod 000) cannot be listed until oms gives
// itself the rights back. (As root nothing stops the listing, so the
// integration test cannot show this.) Run in a child that drops to nobody
// when the test runs as root.
#include "oms/core/run_dir.hpp"
#include "oms/core/run_dir_sweep.hpp"

#include "temp_dir.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

namespace {

constexpr uid_t kNobody = 65534;

// In the child: 0 when the locked-out abandoned folder is gone and the
// positive control (a folder with its lock held) is still there.
int sweep_as_user(const std::string& base) {
    const std::string abandoned = base + "/oms-run-lockedout";
    const std::string live = base + "/oms-run-live";
    for (const std::string& folder : {abandoned, live}) {
        if (mkdir(folder.c_str(), 0700) != 0 || mkdir((folder + "/home").c_str(), 0700) != 0) return 10;
    }
    int free_lock = open((abandoned + "/.owner").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    int held_lock = open((live + "/.owner").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (free_lock < 0 || held_lock < 0 || flock(held_lock, LOCK_EX) != 0) return 11;
    close(free_lock);
    if (chmod((abandoned + "/home").c_str(), 0) != 0 || chmod(abandoned.c_str(), 0) != 0) return 12;
    oms::core::sweep_abandoned_run_dirs(base);
    struct stat info;
    if (lstat(abandoned.c_str(), &info) == 0) return 1;  // still there
    if (lstat((live + "/home").c_str(), &info) != 0) return 2;
    return 0;
}

}  // namespace

TEST_CASE("as an ordinary user, a run folder its command locked up (chmod 000) is still swept; a live one is kept") {
    oms::test::TempDir dir("oms-sweep-user");
    const std::string base = dir / "tmp";
    REQUIRE(mkdir(base.c_str(), 0755) == 0);
    const bool root = geteuid() == 0;
    if (root) {  // nobody must be able to reach and own the temp folder
        REQUIRE(chmod(dir.path().c_str(), 0755) == 0);
        REQUIRE(chown(base.c_str(), kNobody, kNobody) == 0);
    }
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (root && (setgroups(0, nullptr) != 0 || setresgid(kNobody, kNobody, kNobody) != 0 ||
                     setresuid(kNobody, kNobody, kNobody) != 0))
            _exit(20);
        _exit(sweep_as_user(base));
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
