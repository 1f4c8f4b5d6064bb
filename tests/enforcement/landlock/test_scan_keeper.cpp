// The scan keeper in real runs: once it vouches for the worktree's folders
// (oms run says so at debug level), a keypair the user adds between two
// runs, deep in a folder the cache knows or in new folders, is still
// hidden in the next run; and no command sees the keeper's socket, not
// even with /tmp as a write root.
#include "isolation_support.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <regex>

using namespace oms::test;

namespace {

const char* const kAddedKey = "USER-ADDED-WHILE-KEPT-77c1";

// What the keypair search of a run did (OMS_LOG=debug): folders read, and
// folders the keeper vouched for.
struct Search {
    long read = -1;
    long vouched = -1;
};

Search search_of(const RunOutcome& r) {
    std::smatch m;
    static const std::regex line("([0-9]+) folders read, [0-9]+ reused from the cache, ([0-9]+) of them unchanged "
                                 "by the scan keeper's word");
    if (!std::regex_search(r.err, m, line)) return {};
    return Search{std::stol(m[1]), std::stol(m[2])};
}

// Runs until the keeper vouches for at least `folders` folders and no
// folder is read: the first run starts it, the next ones leave a mark it
// answers from. The folders must be older than the cache's 2 s window.
bool warm_keeper(World& w, long folders) {
    for (int run = 0; run < 15; ++run) {
        const RunOutcome r = run_in_oms(w, "true", {"OMS_LOG=debug"});
        const Search search = search_of(r);
        if (r.exit_code == 0 && search.read == 0 && search.vouched >= folders) return true;
        usleep(100'000);
    }
    return false;
}

// 30 modules of 4 folders: past the 64 folders from which a start asks the
// keeper (KeeperClient::kFoldersWorthAQuestion); a smaller worktree is
// checked folder by folder.
void make_kept_worktree(World& w) {
    for (int i = 0; i < 30; ++i) make_dirs(w.work + "/src/m" + std::to_string(i) + "/a/b/c");
}

}  // namespace

TEST_CASE("with the scan keeper vouching, a keypair the user adds between runs is hidden in the next run",
          "[landlock][walk][scan-keeper]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    make_kept_worktree(w);
    sleep(3);  // past the scan cache's window: every folder can be vouched for
    // Another build's keeper (the package test's) may replace this one between
    // two runs: the key must be hidden in every attempt, and one attempt
    // must have had the keeper's word for the other folders.
    bool vouched_run = false;
    for (int attempt = 0; attempt < 3 && !vouched_run; ++attempt) {
        REQUIRE(warm_keeper(w, 120));  // positive control: the keeper is in use
        const std::string tag = std::to_string(attempt);
        const std::string in_known = w.work + "/src/m17/a/b/c/deploy" + tag + "-keypair.json";
        const std::string in_new = w.work + "/src/m3/fresh" + tag + "/er/id.json";
        write_file(in_known, kAddedKey);
        write_file(in_new, kAddedKey);
        write_file(w.work + "/src/m17/a/b/c/beside.txt", "BESIDE-OK");
        const RunOutcome r = run_in_oms(w, "cat " + in_known + "; echo; cat " + in_new + "; echo; cat " + w.work +
                                               "/src/m17/a/b/c/beside.txt; echo; exit 0",
                                        {"OMS_LOG=debug"});
        INFO("attempt " << attempt << ": " << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_FALSE(has(r.out, kAddedKey));
        CHECK(has(r.out, "BESIDE-OK"));  // positive: the file beside it reads
        const Search search = search_of(r);
        // The other folders were vouched for, and only the changed ones read
        // (c, m3, fresh, er, and the folders above them by their times).
        vouched_run = search.vouched >= 110 && search.read <= 6;
        if (!vouched_run) sleep(3);  // the next attempt's folders older than the window again
    }
    CHECK(vouched_run);
}

TEST_CASE("no command sees the scan keeper's socket, not even with /tmp as a write root",
          "[landlock][isolation][scan-keeper]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    make_kept_worktree(w);
    sleep(3);
    REQUIRE(warm_keeper(w, 120));
    const std::string socket = "/tmp/oms-runs-" + std::to_string(geteuid()) + "/scan-keeper.sock";
    REQUIRE(exists(socket));  // positive control: the host has it
    const std::string probe = "test -e " + socket + " && echo SEEN || echo UNSEEN; "
                              "ls /tmp/oms-runs-" + std::to_string(geteuid()) + " 2>/dev/null | grep -c scan-keeper";
    const RunOutcome plain = run_in_oms(w, probe);
    INFO(plain.out << plain.err);
    CHECK(has(plain.out, "UNSEEN"));
    const std::string host_file = "/tmp/" + unique_mark("oms-test-keeper");
    const RunOutcome with_tmp = run_in_oms_with_rw(w, "/tmp", probe + "; echo host > " + host_file);
    INFO(with_tmp.out << with_tmp.err);
    CHECK(has(with_tmp.out, "UNSEEN"));
    CHECK(has(with_tmp.out, "\n0\n"));
    CHECK(exists(host_file));  // positive: /tmp is the host's in that run
    unlink(host_file.c_str());
}
