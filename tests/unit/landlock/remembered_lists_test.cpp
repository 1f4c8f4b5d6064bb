// The scan keeper's remembered folder lists (remembered_lists.hpp): a
// ticket names exactly the list it was given for, for its root only, and
// what is kept stays bounded whatever a process of the user's asks.
#include "remembered_lists.hpp"

#include <catch2/catch.hpp>

#include <set>

using oms::landlock::KeeperFolder;
using oms::landlock::RememberedLists;

TEST_CASE("a ticket names its own list, for its root only, and is never given twice", "[scan-keeper]") {
    RememberedLists lists;
    const KeeperFolder root{1, 100}, other{1, 200};
    const uint64_t first = lists.remember(root, {{1, 100}, {1, 101}});
    const uint64_t second = lists.remember(root, {{1, 100}, {1, 102}, {1, 103}});
    REQUIRE(first != 0);
    REQUIRE(second != 0);
    CHECK(first != second);
    REQUIRE(lists.find(first, root));
    CHECK(lists.find(first, root)->folders == std::vector<KeeperFolder>{{1, 100}, {1, 101}});
    CHECK(lists.find(second, root)->folders.size() == 3);
    CHECK_FALSE(lists.find(first, other));       // another root's question
    CHECK_FALSE(lists.find(second + 1, root));  // never given
}

TEST_CASE("a root keeps its newest lists; the oldest is forgotten", "[scan-keeper]") {
    RememberedLists lists;
    const KeeperFolder root{1, 100};
    std::vector<uint64_t> tickets;
    for (size_t i = 0; i <= RememberedLists::kListsPerRoot; ++i) tickets.push_back(lists.remember(root, {root}));
    CHECK_FALSE(lists.find(tickets.front(), root));
    for (size_t i = 1; i < tickets.size(); ++i) CHECK(lists.find(tickets[i], root));
    CHECK(lists.list_count() == RememberedLists::kListsPerRoot);
}

TEST_CASE("any number of requests keeps the lists bounded, small lists included", "[scan-keeper]") {
    RememberedLists lists;
    std::set<uint64_t> given;
    uint64_t newest = 0;
    for (uint64_t i = 0; i < 3 * RememberedLists::kMaxLists; ++i) {  // each for a root of its own, empty
        newest = lists.remember({1, 1'000'000 + i}, {});
        REQUIRE(newest != 0);
        given.insert(newest);
    }
    CHECK(given.size() == 3 * RememberedLists::kMaxLists);  // never the same ticket twice
    CHECK(lists.list_count() <= RememberedLists::kMaxLists);
    CHECK(lists.weight() <= RememberedLists::kMaxFolders);
    CHECK(lists.find(newest, {1, 1'000'000 + 3 * RememberedLists::kMaxLists - 1}));  // positive control
    CHECK_FALSE(lists.find(1, {1, 1'000'000}));                                   // the oldest: gone
    // Large lists are bounded by their folders.
    const std::vector<KeeperFolder> large(RememberedLists::kMaxFolders / 3, KeeperFolder{2, 7});
    for (uint64_t i = 0; i < 5; ++i) REQUIRE(lists.remember({3, i}, large) != 0);
    CHECK(lists.weight() <= RememberedLists::kMaxFolders);
    CHECK(lists.remember({4, 0}, std::vector<KeeperFolder>(RememberedLists::kMaxFolders + 1)) == 0);  // too large
}
