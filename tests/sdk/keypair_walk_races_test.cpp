// The keypair walk against a tree that changes under it, made to happen at
// the one moment that matters: this test program interposes fstatat(2) and
// syscall(2) (the walk's getdents64) for the SDK's walk linked into it, so
// a keypair file is renamed, or a plain file removed, exactly between the
// folder's listing and the walk's look at the entry, and listings can be
// made to carry no entry types (xfs with ftype=0, some FUSE file systems),
// and openat2 to fail, so the plain walk is the one at work (as on kernels
// or seccomp filters without it), not the two-thread one.
// Also a keypair-named link deeper than PATH_MAX can name.
#include <oms/sdk.hpp>
#include <oms/secret_search.hpp>
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

// What the interposed calls do; all off by default.
struct Interference {
    std::string rename_from;  // the first fstatat of an entry of this name renames it to `rename_to` first
    std::string rename_to;
    std::string remove;       // the first fstatat of an entry of this name removes it first
    bool no_types = false;    // getdents64 reports DT_UNKNOWN for every entry
    bool no_openat2 = false;  // openat2 fails (ENOSYS): the two-thread walk steps aside for the plain one
} interference;

void interfere(int dir_fd, const char* name) {
    if (!interference.rename_from.empty() && interference.rename_from == name) {
        interference.rename_from.clear();
        renameat(dir_fd, name, dir_fd, interference.rename_to.c_str());
    }
    if (!interference.remove.empty() && interference.remove == name) {
        interference.remove.clear();
        unlinkat(dir_fd, name, 0);
    }
}

}  // namespace

extern "C" int fstatat(int dir_fd, const char* name, struct stat* st, int flags) {
    static auto real = reinterpret_cast<int (*)(int, const char*, struct stat*, int)>(dlsym(RTLD_NEXT, "fstatat"));
    interfere(dir_fd, name);
    return real(dir_fd, name, st, flags);
}

extern "C" long syscall(long number, ...) {
    static auto real = reinterpret_cast<long (*)(long, ...)>(dlsym(RTLD_NEXT, "syscall"));
    va_list args;
    va_start(args, number);
    long a[6];
    for (long& arg : a) arg = va_arg(args, long);
    va_end(args);
    if (number == SYS_openat2 && interference.no_openat2) {
        errno = ENOSYS;
        return -1;
    }
    const long result = real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (number == SYS_getdents64 && result > 0 && interference.no_types) {
        struct Entry {
            uint64_t ino;
            int64_t off;
            unsigned short reclen;
            unsigned char type;
        };
        char* buffer = reinterpret_cast<char*>(a[1]);
        for (long at = 0; at < result;) {
            auto* entry = reinterpret_cast<Entry*>(buffer + at);
            entry->type = DT_UNKNOWN;
            at += entry->reclen;
        }
    }
    return result;
}

namespace {

oms::sdk::SecretSearch search_of(const std::string& root) {
    return oms::sdk::SecretSearch{"test", {root}, {"-keypair.json"}, {}, {}};
}

}  // namespace

TEST_CASE("a keypair renamed between its folder's listing and the walk's look at it is found under its new name") {
    oms::test::TempDir base("oms-walk-race");
    const std::string root = base / "tree";
    oms::test::write_file(root + "/a/foo-keypair.json", "[1]");
    oms::test::write_file(root + "/b/notes.txt", "notes");
    const bool plain = GENERATE(false, true);
    INFO((plain ? "the plain walk" : "the two-thread walk"));
    interference = {"foo-keypair.json", "moved-keypair.json", "", false, plain};
    const auto found = oms::sdk::find_secrets(search_of(root));
    CHECK(interference.rename_from.empty());  // the rename did happen, in the walk
    CHECK(found.complete);
    CHECK(found.files == std::vector<std::string>{root + "/a/moved-keypair.json"});  // walked again
    interference = {};
    // Control: untouched, the file is found under its own name.
    REQUIRE(rename((root + "/a/moved-keypair.json").c_str(), (root + "/a/foo-keypair.json").c_str()) == 0);
    CHECK(oms::sdk::find_secrets(search_of(root)).files == std::vector<std::string>{root + "/a/foo-keypair.json"});
}

TEST_CASE("where listings carry no types, an entry gone before its type is asked makes the walk start again") {
    oms::test::TempDir base("oms-walk-notype");
    const std::string root = base / "tree";
    oms::test::write_file(root + "/a/deploy/prog-keypair.json", "[1]");
    oms::test::write_file(root + "/a/scratch.tmp", "");
    oms::test::write_file(root + "/c/id-keypair.json", "[2]");
    const bool plain = GENERATE(false, true);
    INFO((plain ? "the plain walk" : "the two-thread walk"));
    interference = {"", "", "scratch.tmp", true, plain};
    const auto found = oms::sdk::find_secrets(search_of(root));
    const bool removed = interference.remove.empty();
    interference = {};
    CHECK(removed);
    CHECK(found.complete);
    CHECK(found.files == std::vector<std::string>{root + "/a/deploy/prog-keypair.json", root + "/c/id-keypair.json"});
}

TEST_CASE("a keypair-named link deeper than PATH_MAX can name is refused, not passed over") {
    oms::test::TempDir base("oms-walk-deep-link");
    const std::string root = base / "tree";
    oms::test::write_file(root + "/top-keypair.json", "[1]");
    // Twenty folders of 250-byte names, made one level at a time.
    int at = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(at >= 0);
    for (int i = 0; i < 20; ++i) {
        const std::string name(250, static_cast<char>('a' + i));
        REQUIRE(mkdirat(at, name.c_str(), 0700) == 0);
        const int next = openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(at);
        REQUIRE(next >= 0);
        at = next;
    }
    REQUIRE(mkdirat(at, "stash", 0700) == 0);
    REQUIRE(symlinkat("stash", at, "deep-keypair.json") == 0);  // a keypair name made a link to a folder
    close(at);
    const auto found = oms::sdk::find_secrets(search_of(root));
    CHECK(found.files == std::vector<std::string>{root + "/top-keypair.json"});  // control: the plain one
    REQUIRE(found.keypair_links.size() == 1);
    CHECK(found.keypair_links[0].path.size() > size_t(PATH_MAX));
    CHECK(found.keypair_links[0].why == "a link whose target cannot be resolved");
}
