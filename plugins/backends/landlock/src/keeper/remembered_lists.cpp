#include "remembered_lists.hpp"

#include <algorithm>

namespace oms::landlock {

uint64_t RememberedLists::remember(const KeeperFolder& root, std::vector<KeeperFolder> folders) {
    const size_t weight = weight_of(folders.size());
    if (weight > kMaxFolders) return 0;  // no ticket: its starts send their folders
    auto& of_root = by_root_[root];
    while (of_root.size() >= kListsPerRoot) forget(of_root.front());
    while (!lists_.empty() && (lists_.size() >= kMaxLists || weight_ + weight > kMaxFolders))
        forget(lists_.begin()->first);
    const uint64_t ticket = next_ticket_++;
    weight_ += weight;
    List list;
    list.root = root;
    list.folders = std::move(folders);
    lists_.emplace(ticket, std::move(list));
    by_root_[root].push_back(ticket);  // looked up again: forget() may have erased the root's entry
    return ticket;
}

RememberedLists::List* RememberedLists::find(uint64_t ticket, const KeeperFolder& root) {
    auto found = lists_.find(ticket);
    if (found == lists_.end() || !(found->second.root == root)) return nullptr;
    return &found->second;
}

void RememberedLists::forget(uint64_t ticket) {
    auto list = lists_.find(ticket);
    if (list == lists_.end()) return;
    auto of_root = by_root_.find(list->second.root);
    if (of_root != by_root_.end()) {
        auto& tickets = of_root->second;
        tickets.erase(std::remove(tickets.begin(), tickets.end(), ticket), tickets.end());
        if (tickets.empty()) by_root_.erase(of_root);
    }
    weight_ -= weight_of(list->second.folders.size());
    lists_.erase(list);
}

}  // namespace oms::landlock
