// The folder lists the scan keeper remembers for the caches starts write,
// so that a later start names its cache's folders by a ticket instead of
// sending them all (keeper_protocol.hpp).
//
// A ticket is a number of this keeper's own, never given twice: it names
// exactly the list the start that wrote the cache sent, for exactly the
// root it sent it for. A cache names the ticket beside its folders; a
// ticket the keeper no longer knows (forgotten, or another keeper's) only
// makes the start send its folders again.
//
// Bounded whatever is asked of it (any process of the user's may ask): at
// most kMaxLists lists, and kMaxFolders folders counting each list as at
// least kListCost, the oldest forgotten first.
#pragma once
#include "keeper_protocol.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

namespace oms::landlock {

class RememberedLists {
public:
    // The newest lists of each root are kept: a root's older caches were
    // replaced by the newer ones (at most a few concurrent starts' worth).
    static constexpr size_t kListsPerRoot = 4;
    static constexpr size_t kMaxLists = 4096;
    static constexpr size_t kMaxFolders = 4'000'000;  // 64 MB of identities
    static constexpr size_t kListCost = 64;           // what a list weighs at least, in folders

    // A new ticket for `folders` of `root` (0: too many folders to keep).
    uint64_t remember(const KeeperFolder& root, std::vector<KeeperFolder> folders);

    struct List {
        KeeperFolder root;
        std::vector<KeeperFolder> folders;
        // The last check that found every folder unchanged: since which
        // moment, and at which FolderWatches::changes() count. While that
        // count holds, the same question has the same answer.
        uint64_t checked_since = 0;
        uint64_t checked_at_changes = 0;
        bool all_unchanged = false;
    };

    // The list under `ticket` for `root`, or nullptr.
    List* find(uint64_t ticket, const KeeperFolder& root);

    size_t list_count() const { return lists_.size(); }
    size_t weight() const { return weight_; }

private:
    std::map<uint64_t, List> lists_;  // by ticket: the oldest first
    std::unordered_map<KeeperFolder, std::deque<uint64_t>, KeeperFolderHash> by_root_;  // oldest first
    uint64_t next_ticket_ = 1;
    size_t weight_ = 0;

    static size_t weight_of(size_t folders) { return folders < kListCost ? kListCost : folders; }
    void forget(uint64_t ticket);
};

}  // namespace oms::landlock
