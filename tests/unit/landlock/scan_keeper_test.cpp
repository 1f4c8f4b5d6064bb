// The keypair search with a real scan keeper (the built oms-scan-keeper,
// started by the search itself as in a launch): once it vouches for every
// folder no folder is stat'ed, and every change between two searches is
// still found. Each test first shows the keeper vouching (the positive
// control: a search that never asks it would pass the rest trivially).
#include "keeper_client.hpp"
#include "keeper_protocol.hpp"
#include "remembered_lists.hpp"
#include <oms/scan_cache.hpp>
#include "keypair_walk_tree.hpp"
#include <oms/keypair_walk.hpp>

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

using namespace oms::landlock;
using namespace oms::sdk;
using namespace oms::sdk::test;
using Paths = std::vector<std::string>;

namespace {

const size_t kFolders = 9;  // root a a/b a/b/c a/b/c/d a/b/c/d/e side side/one side/two
// These trees are small: their searches ask the keeper all the same.
constexpr size_t kAlwaysAsk = 0;

bool has(const Paths& paths, const std::string& path) {
    return std::find(paths.begin(), paths.end(), path) != paths.end();
}

// The keeper's pid, from its socket's credentials.
pid_t keeper_pid(const std::string& folder) {
    const std::string path = folder + "/" + kKeeperSocketName;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path.copy(address.sun_path, sizeof address.sun_path - 1);
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ucred peer{};
    socklen_t size = sizeof peer;
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0;
    close(fd);
    return ok ? peer.pid : 0;
}

// Calls `ready` every 50 ms until it says so (true), or 30 s passed (false).
template <typename Ready>
bool eventually(Ready ready) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!ready()) {
        if (std::chrono::steady_clock::now() >= until) return false;
        usleep(50'000);  // the keeper may still be starting or walking the tree
    }
    return true;
}

// A tree searched with a keeper of its own (its folder stands for the
// user's run folder base), stopped when the test ends.
struct KeptTree : ScanTree {
    oms::test::TempDir keeper_folder{"oms-keeper"};
    KeeperClient client{keeper_folder.path(), OMS_SCAN_KEEPER_PROGRAM, 60, kAlwaysAsk};
    KeptTree() {
        chmod(keeper_folder.path().c_str(), 0700);
        keeper = &client;
    }
    ~KeptTree() { stop_keeper(); }
    // Stopped, and a new client (one start per launch: this is a new one).
    void stop_keeper() {
        if (const pid_t pid = keeper_pid(keeper_folder.path())) kill(pid, SIGKILL);
        unlink((keeper_folder / kKeeperSocketName).c_str());
        new_client();
    }
    void new_client() { client = KeeperClient(keeper_folder.path(), program, 60, kAlwaysAsk); }
    std::string program = OMS_SCAN_KEEPER_PROGRAM;  // the keeper the launches start
    // Searches until the keeper vouches for every folder: the first search
    // starts it, the next ones leave a mark it can answer from. Done as soon
    // as it vouches; the bound only ends a test whose keeper never comes,
    // and is generous because a keeper's start waits for an ending one's
    // exit, which a slow or busy machine can stretch to seconds.
    bool warm() {
        return eventually([&] {
            new_client();  // each search stands for a launch of its own, as in oms
            ScanStats stats;
            scan(&stats);
            return stats.folders_vouched == kFolders && stats.folders_read == 0;
        });
    }
};

// Gone, or a zombie nobody reaped yet: not running any more.
bool stopped_within(pid_t pid, int milliseconds) {
    for (int waited = 0; waited < milliseconds; waited += 20) {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string pid_field, name, state;
        if (!(stat >> pid_field >> name >> state) || state == "Z") return true;
        usleep(20'000);
    }
    return false;
}

}  // namespace

TEST_CASE("with the scan keeper a warm search stats no folder and lists what a full walk lists", "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());
    ScanStats stats;
    const Paths found = tree.scan(&stats);
    CHECK(stats.keeper_answers == 1);
    CHECK(stats.folders_vouched == kFolders);
    CHECK(stats.folders_read == 0);
    CHECK(stats.caches_written == 0);
    CHECK(found == find_secret_files(ScanRequest{{tree.root}, keypair_suffixes(), {}}));
    CHECK(found == Paths{tree.path("a/b/c/d/id.json"), tree.path("a/x-keypair.json")});
}

TEST_CASE("with the scan keeper a keypair added between searches is found", "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());
    SECTION("in a deep folder the cache knows") {
        oms::test::write_file(tree.path("a/b/c/d/e/deep-keypair.json"), "[7]");
        ScanStats stats;
        const Paths found = tree.scan(&stats);
        CHECK(has(found, tree.path("a/b/c/d/e/deep-keypair.json")));
        CHECK(has(found, tree.path("a/x-keypair.json")));
        CHECK(stats.folders_read == 1);                 // e alone
        CHECK(stats.folders_reused == kFolders - 1);
        CHECK(stats.folders_vouched == kFolders - 2);  // all but e and the root (the walk opens and stats it)
    }
    SECTION("in new folders") {
        oms::test::write_file(tree.path("side/two/new/er/id.json"), "[8]");
        const Paths found = tree.scan();
        CHECK(has(found, tree.path("side/two/new/er/id.json")));
    }
    SECTION("in a folder moved in from outside the tree") {
        const std::string outside = tree.base / "outside";
        oms::test::write_file(outside + "/sub/moved-keypair.json", "[9]");
        REQUIRE(rename(outside.c_str(), tree.path("side/one/moved").c_str()) == 0);
        const Paths found = tree.scan();
        CHECK(has(found, tree.path("side/one/moved/sub/moved-keypair.json")));
    }
    SECTION("by renaming a file in a known folder") {
        oms::test::write_file(tree.path("side/one/plain.txt"), "[10]");
        REQUIRE(tree.warm());
        REQUIRE(rename(tree.path("side/one/plain.txt").c_str(), tree.path("side/one/renamed-keypair.json").c_str()) ==
                0);
        CHECK(has(tree.scan(), tree.path("side/one/renamed-keypair.json")));
    }
    SECTION("in a folder swapped for another of the same name") {
        const std::string other = tree.base / "other";
        oms::test::write_file(other + "/swapped-keypair.json", "[11]");
        REQUIRE(rename(tree.path("side/two").c_str(), (tree.base / "old-two").c_str()) == 0);
        REQUIRE(rename(other.c_str(), tree.path("side/two").c_str()) == 0);
        CHECK(has(tree.scan(), tree.path("side/two/swapped-keypair.json")));
    }
    SECTION("while the keeper was gone") {
        tree.stop_keeper();
        oms::test::write_file(tree.path("a/b/late-keypair.json"), "[12]");
        ScanStats stats;
        const Paths found = tree.scan(&stats);
        CHECK(has(found, tree.path("a/b/late-keypair.json")));
        CHECK(stats.folders_vouched == 0);
        REQUIRE(tree.warm());  // a new keeper, started by that search, vouches again
        oms::test::write_file(tree.path("a/b/c/later-keypair.json"), "[13]");
        CHECK(has(tree.scan(), tree.path("a/b/c/later-keypair.json")));
    }
}

TEST_CASE("the scan keeper answers only its own user, on a socket only that user may use", "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());
    struct stat st;
    REQUIRE(lstat((tree.keeper_folder / kKeeperSocketName).c_str(), &st) == 0);
    CHECK(S_ISSOCK(st.st_mode));
    CHECK((st.st_mode & 077) == 0);
    CHECK(st.st_uid == geteuid());
}

TEST_CASE("a scan keeper asked about a folder it does not watch never vouches for it", "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());
    const std::string elsewhere = tree.base / "elsewhere";
    oms::test::make_dirs(elsewhere);
    struct stat st;
    REQUIRE(stat(elsewhere.c_str(), &st) == 0);
    struct stat root_st;
    REQUIRE(stat(tree.root.c_str(), &root_st) == 0);
    // The mark of the tree's cache, read back from the summary: a real moment of this keeper.
    auto summary = load_scan_summary(cache_file_for(tree.cache, tree.root), tree.root,
                                     ScanShape{keypair_suffixes(), {}, false});
    REQUIRE(summary);
    REQUIRE(summary->keeper.known());
    KeeperRequest request;
    request.since = summary->keeper;
    request.root = {uint64_t(root_st.st_dev), uint64_t(root_st.st_ino)};
    request.root_path = tree.root;
    request.folders = {request.root, {uint64_t(st.st_dev), uint64_t(st.st_ino)}};
    auto answer = tree.client.ask(request, 2);
    REQUIRE(answer);
    REQUIRE(answer->unchanged.size() == 2);
    CHECK(answer->unchanged[0]);        // positive control: the watched root
    CHECK_FALSE(answer->unchanged[1]);  // never watched
    request.since.id[0] ^= 1;           // a mark of another keeper: nothing is vouched for
    answer = tree.client.ask(request, 2);
    REQUIRE(answer);
    CHECK_FALSE(answer->unchanged[0]);
}

TEST_CASE("a warm search names its folders by the keeper's ticket, and a change is still found through it",
          "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());
    const ScanShape shape{keypair_suffixes(), {}, false};
    auto summary = load_scan_summary(cache_file_for(tree.cache, tree.root), tree.root, shape);
    REQUIRE(summary);
    CHECK(summary->ticket != 0);  // the walk that wrote the cache got one
    CHECK(summary->folder_count == kFolders);
    struct stat root_st;
    REQUIRE(stat(tree.root.c_str(), &root_st) == 0);
    KeeperRequest request;
    request.since = summary->keeper;
    request.root = {uint64_t(root_st.st_dev), uint64_t(root_st.st_ino)};
    request.root_path = tree.root;
    request.ticket = summary->ticket;
    SECTION("the ticket stands for the cache's folders: all unchanged, in one short question") {
        auto answer = tree.client.ask(request, kFolders);
        REQUIRE(answer);
        CHECK(answer->ticket == summary->ticket);
        CHECK(std::count(answer->unchanged.begin(), answer->unchanged.end(), true) == long(kFolders));
        CHECK_FALSE(tree.client.ask(request, kFolders + 1));  // a list of another length is not believed
    }
    SECTION("a ticket it never gave, or gave for another root, vouches for nothing") {
        request.ticket = summary->ticket + 1000;
        auto unknown = tree.client.ask(request, kFolders);
        REQUIRE(unknown);
        CHECK(unknown->ticket == 0);
        CHECK(unknown->unchanged.empty());
        request.ticket = summary->ticket;
        request.root.inode ^= 1;
        auto other_root = tree.client.ask(request, kFolders);
        REQUIRE(other_root);
        CHECK(other_root->ticket == 0);
        CHECK(other_root->unchanged.empty());
    }
    SECTION("a folder changed after the mark is not vouched for by ticket, twice in a row") {
        oms::test::write_file(tree.path("a/b/c/d/e/ticket-keypair.json"), "[13]");
        for (int question = 0; question < 2; ++question) {  // the second from the keeper's remembered check
            auto answer = tree.client.ask(request, kFolders);
            REQUIRE(answer);
            CHECK(std::count(answer->unchanged.begin(), answer->unchanged.end(), false) == 1);
        }
        ScanStats stats;
        const Paths found = tree.scan(&stats);
        CHECK(has(found, tree.path("a/b/c/d/e/ticket-keypair.json")));
        CHECK(stats.folders_read == 1);
    }
    SECTION("a ticket pushed out by newer lists of its root: the search asks by the folders instead") {
        for (size_t i = 0; i < RememberedLists::kListsPerRoot; ++i)
            CHECK(tree.client.remember(request.root, tree.root, {request.root}) != 0);
        CHECK(tree.client.ask(request, kFolders)->ticket == 0);  // forgotten
        ScanStats stats;
        const Paths found = tree.scan(&stats);
        CHECK(stats.keeper_answers == 1);
        CHECK(stats.folders_vouched == kFolders);  // by the folders
        CHECK(stats.folders_read == 0);
        CHECK(found == Paths{tree.path("a/b/c/d/id.json"), tree.path("a/x-keypair.json")});
    }
    SECTION("a cache whose ticket was another keeper's is walked, and written with the new keeper's ticket") {
        tree.stop_keeper();
        // The first search starts a keeper; the first it answers names the
        // old keeper's ticket, which this keeper never gave.
        ScanStats answered;
        REQUIRE(eventually([&] {
            tree.new_client();
            answered = ScanStats{};
            tree.scan(&answered);
            return answered.keeper_answers == 1;
        }));
        CHECK(answered.folders_vouched == 0);
        CHECK(answered.caches_written == 1);
        REQUIRE(tree.warm());
        auto warm = load_scan_summary(cache_file_for(tree.cache, tree.root), tree.root, shape);
        REQUIRE(warm);
        CHECK(warm->ticket != 0);
        oms::test::write_file(tree.path("side/one/after-restart-keypair.json"), "[14]");
        const Paths found = tree.scan();
        CHECK(has(found, tree.path("side/one/after-restart-keypair.json")));
    }
}

TEST_CASE("a cache written without a ticket gets one once the keeper vouches for all its folders",
          "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());
    // As when the keeper turned the writing start away: the same cache, no ticket.
    const ScanShape shape{keypair_suffixes(), {}, false};
    const std::string file = cache_file_for(tree.cache, tree.root);
    auto before = load_scan_summary(file, tree.root, shape);
    REQUIRE(before);
    auto cache = load_scan_cache(file, tree.root, shape);
    REQUIRE(cache);
    CacheEntries entries;
    for (const auto& [relative, record] : cache->folders) entries.emplace_back(relative, &record);
    REQUIRE(save_scan_cache(file, tree.root, shape, before->keeper, entries,
                            WalkFacts{before->skip, before->too_deep, before->passed_over}, 0));
    REQUIRE(load_scan_summary(file, tree.root, shape)->ticket == 0);
    ScanStats by_folders;
    const Paths found = tree.scan(&by_folders);
    CHECK(by_folders.folders_vouched == kFolders);  // asked by the folders
    CHECK(by_folders.caches_written == 1);          // and written again with a ticket
    auto after = load_scan_summary(file, tree.root, shape);
    REQUIRE(after);
    CHECK(after->ticket != 0);
    CHECK(after->keeper == before->keeper);  // the same mark: nothing is vouched for from later on
    CHECK(after->folders.size() == kFolders);
    ScanStats by_ticket;
    CHECK(tree.scan(&by_ticket) == found);
    CHECK(by_ticket.folders_vouched == kFolders);
    CHECK(by_ticket.caches_written == 0);
    CHECK(found == Paths{tree.path("a/b/c/d/id.json"), tree.path("a/x-keypair.json")});
}

TEST_CASE("a keeper started by a launcher that blocks signals still stops on SIGTERM", "[scan-keeper]") {
    // oms blocks the signals it forwards to its command; the keeper must not
    // inherit that mask, or nothing short of SIGKILL would stop it.
    sigset_t forwarded, old;
    sigemptyset(&forwarded);
    for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&forwarded, signal_number);
    REQUIRE(sigprocmask(SIG_BLOCK, &forwarded, &old) == 0);
    KeptTree tree;
    const bool warmed = tree.warm();
    sigprocmask(SIG_SETMASK, &old, nullptr);
    REQUIRE(warmed);
    const pid_t pid = keeper_pid(tree.keeper_folder.path());
    REQUIRE(pid > 0);                       // positive control: it runs
    REQUIRE_FALSE(stopped_within(pid, 0));
    char cwd[64] = {};
    CHECK(readlink(("/proc/" + std::to_string(pid) + "/cwd").c_str(), cwd, sizeof cwd - 1) == 1);
    CHECK(std::string(cwd) == "/");  // keeps no folder of the launcher's busy
    REQUIRE(kill(pid, SIGTERM) == 0);
    CHECK(stopped_within(pid, 3000));
    CHECK_FALSE(oms::test::exists(tree.keeper_folder / kKeeperSocketName));  // it removed its socket
}

TEST_CASE("a second keeper for the same folder leaves at once; the first one goes on answering", "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());
    const pid_t first = keeper_pid(tree.keeper_folder.path());
    REQUIRE(first > 0);
    const pid_t second = fork();
    REQUIRE(second >= 0);
    if (second == 0) {
        execl(OMS_SCAN_KEEPER_PROGRAM, OMS_SCAN_KEEPER_PROGRAM, tree.keeper_folder.path().c_str(), "60",
              static_cast<char*>(nullptr));
        _exit(127);
    }
    int status = -1;
    REQUIRE(waitpid(second, &status, 0) == second);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(keeper_pid(tree.keeper_folder.path()) == first);
    ScanStats stats;
    tree.scan(&stats);
    CHECK(stats.folders_vouched == kFolders);  // still answered by the first
}

TEST_CASE("a cache read once gives its records from the same bytes, whatever is renamed over the file",
          "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());
    const std::string file = cache_file_for(tree.cache, tree.root);
    const ScanShape shape{keypair_suffixes(), {}, false};
    const std::string stale = tree.base / "stale-cache";
    REQUIRE(system(("cp -p '" + file + "' '" + stale + "'").c_str()) == 0);
    oms::test::write_file(tree.path("a/b/c/d/e/added-keypair.json"), "[14]");
    const Paths fresh_found = tree.scan();
    REQUIRE(has(fresh_found, tree.path("a/b/c/d/e/added-keypair.json")));  // the fresh cache knows it
    auto opened = ScanCacheFile::open(file, tree.root, shape);
    REQUIRE(opened);
    REQUIRE(rename(stale.c_str(), file.c_str()) == 0);  // an older cache, renamed in by a slower start
    auto records = opened->records();
    REQUIRE(records);
    CHECK(records->keeper == opened->summary().keeper);
    const auto e = records->folders.find("a/b/c/d/e");
    REQUIRE(e != records->folders.end());
    CHECK(e->second.matches.size() == 1);  // the fresh file's record, not the stale one's
    // And a start that finds the older cache asks the keeper from its older
    // mark: the folder changed since, so it is read again.
    ScanStats stats;
    CHECK(has(tree.scan(&stats), tree.path("a/b/c/d/e/added-keypair.json")));
    CHECK(stats.folders_read >= 1);
}

TEST_CASE("a summary says whether the walk passed over a folder it could not read", "[scan-keeper]") {
    // Another user's folder the user may not read is passed over; it can
    // become readable with no event the keeper sees, so such a summary is
    // never taken as it is (incremental_scan.cpp). Root reads every folder,
    // so the flag is checked through the file here, as and for every user.
    ScanTree tree;
    ScanCache cache{tree.root, ScanShape{keypair_suffixes(), {}, false}, {}, {}};
    FolderRecord root_record;
    root_record.trusted = true;
    cache.folders.emplace("", root_record);
    CacheEntries entries{{"", &cache.folders.at("")}};
    const std::string file = tree.base / "summary-test";
    for (const bool passed_over : {false, true}) {
        REQUIRE(save_scan_cache(file, tree.root, cache.shape, KeeperMark{}, entries,
                                WalkFacts{{}, {}, passed_over}));
        auto summary = load_scan_summary(file, tree.root, cache.shape);
        REQUIRE(summary);
        CHECK(summary->passed_over == passed_over);
    }
}

TEST_CASE("a cache of fewer folders than a question is worth is checked folder by folder", "[scan-keeper]") {
    KeptTree tree;
    REQUIRE(tree.warm());  // positive control: the keeper vouches for this tree when asked
    SECTION("below the limit: no question, and a keypair added is found by the checks") {
        tree.client = KeeperClient(tree.keeper_folder.path(), OMS_SCAN_KEEPER_PROGRAM, 60, kFolders + 1);
        oms::test::write_file(tree.path("a/b/c/d/e/small-keypair.json"), "[12]");
        ScanStats stats;
        const Paths found = tree.scan(&stats);
        CHECK(stats.keeper_answers == 0);
        CHECK(stats.folders_vouched == 0);
        CHECK(stats.folders_read == 1);  // e, found changed by its own times
        CHECK(has(found, tree.path("a/b/c/d/e/small-keypair.json")));
    }
    SECTION("at the limit: asked") {
        tree.client = KeeperClient(tree.keeper_folder.path(), OMS_SCAN_KEEPER_PROGRAM, 60, kFolders);
        ScanStats stats;
        tree.scan(&stats);
        CHECK(stats.keeper_answers == 1);
        CHECK(stats.folders_vouched == kFolders);
    }
    SECTION("the default limit leaves a tree this small to the checks") {
        tree.client = KeeperClient(tree.keeper_folder.path(), OMS_SCAN_KEEPER_PROGRAM, 60);
        ScanStats stats;
        tree.scan(&stats);
        CHECK(stats.keeper_answers == 0);
        CHECK(stats.folders_reused == kFolders);
    }
}

TEST_CASE("a keeper of another build is not believed, and is asked to stop", "[scan-keeper]") {
    KeptTree tree;
    // "Another build": the same program under another name, as an older
    // install or an unpacked package would be.
    const std::string other = tree.base / "other-build/oms-scan-keeper";
    oms::test::make_dirs(tree.base / "other-build");
    REQUIRE(system(("cp '" + std::string(OMS_SCAN_KEEPER_PROGRAM) + "' '" + other + "'").c_str()) == 0);
    tree.program = other;
    tree.new_client();
    REQUIRE(tree.warm());  // positive control: its own launcher believes it
    const pid_t foreign = keeper_pid(tree.keeper_folder.path());
    REQUIRE(foreign > 0);
    tree.program = OMS_SCAN_KEEPER_PROGRAM;
    tree.new_client();
    ScanStats stats;
    tree.scan(&stats);
    CHECK(stats.keeper_answers == 0);
    CHECK(stats.folders_vouched == 0);
    CHECK(stopped_within(foreign, 3000));
    tree.client = KeeperClient(tree.keeper_folder.path(), OMS_SCAN_KEEPER_PROGRAM, 60, kAlwaysAsk);
    CHECK(tree.warm());  // this build's keeper, started by a later search
    const pid_t ours = keeper_pid(tree.keeper_folder.path());
    CHECK(ours != foreign);
}

TEST_CASE("a chain of folders longer than a path can name is searched from the cache, not walked again",
          "[scan-keeper]") {
    // 20 folders of 250-character names: their paths pass PATH_MAX, so they
    // can only be opened name by name. A folder the keeper cannot vouch for
    // at the bottom must not make the search start again from scratch.
    KeptTree tree;
    const std::string long_name(250, 'n');
    int at = open(tree.path("side/two").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(at >= 0);
    for (int i = 0; i < 20; ++i) {
        REQUIRE(mkdirat(at, long_name.c_str(), 0700) == 0);
        const int next = openat(at, long_name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(at);
        at = next;
        REQUIRE(at >= 0);
    }
    let_time_pass();
    bool warm = false;
    for (int search = 0; search < 20 && !warm; ++search) {
        ScanStats stats;
        tree.scan(&stats);
        warm = stats.folders_read == 0 && stats.folders_vouched == kFolders + 20;
        if (!warm) usleep(50'000);
    }
    REQUIRE(warm);  // positive control: the keeper vouches for the whole chain
    const int key = openat(at, "deep-keypair.json", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(key >= 0);
    close(key);
    close(at);
    ScanStats stats;
    const Paths found = tree.scan(&stats);
    CHECK(std::any_of(found.begin(), found.end(),
                      [](const std::string& path) { return path.size() > 5000 && path.find("deep-keypair.json") != std::string::npos; }));
    CHECK(stats.folders_read == 1);  // the bottom folder alone, opened name by name
}
