// oms/scan_keeper.hpp: what the cached keypair walk (oms/keypair_walk_cached.hpp)
// asks of a scan keeper, a process that watches the folders of a cache and
// says which have not changed since the cache was made. A keeper is an
// accelerator only: the walk gives the answer a full walk would give with
// or without one, and any failure (no keeper, no answer, a wrong one) means
// "no word", so every folder is checked as if there were none.
//
// landlock's keeper (an inotify watcher, its wire format and the program
// `oms-scan-keeper`) implements ScanKeeper; a backend may bring its own.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace oms::sdk {

using KeeperId = std::array<uint8_t, 16>;

// A cache's "as of": which keeper answered and at which of its moments.
struct KeeperMark {
    KeeperId id{};
    uint64_t moment = 0;
    bool known() const { return moment != 0; }
    bool operator==(const KeeperMark& other) const { return id == other.id && moment == other.moment; }
};

// A folder by what it is, whatever path leads to it. Sent as it is in
// memory by landlock's keeper: two u64, no padding (checked below).
struct KeeperFolder {
    uint64_t device = 0;
    uint64_t inode = 0;
    bool operator==(const KeeperFolder& other) const { return device == other.device && inode == other.inode; }
};

static_assert(sizeof(KeeperFolder) == 16, "KeeperFolder is two u64");

struct KeeperFolderHash {
    size_t operator()(const KeeperFolder& id) const {  // mixed, so that sequential inodes spread over buckets
        uint64_t h = (id.inode ^ (id.device << 32 | id.device >> 32)) * 0x9E3779B97F4A7C15ull;
        return size_t(h ^ (h >> 29));
    }
};

enum class KeeperAsk : uint32_t {
    // Which folders are unchanged since `since`: those of `folders`, or,
    // when it is empty, those the keeper remembers under `ticket`.
    unchanged = 1,
    // Remember `folders` (a cache about to be written) under a new ticket.
    remember = 2,
};

struct KeeperRequest {
    KeeperAsk kind = KeeperAsk::unchanged;
    uint64_t mount_namespace = 0;  // the asker's (a keeper answers only for the namespace it watches from)
    KeeperMark since;
    KeeperFolder root;
    std::string root_path;
    uint64_t ticket = 0;
    std::vector<KeeperFolder> folders;
};

struct KeeperAnswer {
    KeeperMark now;
    uint64_t ticket = 0;
    std::vector<bool> unchanged;  // one per folder asked about
};

class ScanKeeper {
public:
    virtual ~ScanKeeper() = default;

    // Whether a cache of `folders` folders is worth a question; a root with
    // no cache yet always is (its first walk needs the keeper's mark).
    virtual bool worth_asking(std::optional<size_t> folders) const = 0;

    // Which folders are unchanged: those of request.folders, or, when it is
    // empty, those of request.ticket's list (`folders` of them). Nullopt:
    // no word. An answer with ticket 0 to a question by ticket vouches for
    // nothing (ask again by the folders).
    virtual std::optional<KeeperAnswer> ask(KeeperRequest& request, size_t folders) = 0;

    // A ticket for the folders of a cache about to be written (0: none).
    virtual uint64_t remember(const KeeperFolder& root, const std::string& root_path,
                              std::vector<KeeperFolder> folders) = 0;
};

}  // namespace oms::sdk
