#include "remembered_lists.hpp"

namespace oms::landlock {

uint64_t RememberedLists::remember(const KeeperFolder& root, std::vector<KeeperFolder> folders) {
    if (folders.size() > kMaxFolders) return 0;  // no ticket: its starts send their folders
    size_t of_root = 0;
    for (auto it = lists_.rbegin(); it != lists_.rend(); ++it)
        if (it->second.root == root) ++of_root;
    for (auto it = lists_.begin(); it != lists_.end() && of_root >= kListsPerRoot;) {
        auto next = std::next(it);
        if (it->second.root == root) {
            forget(it);
            --of_root;
        }
        it = next;
    }
    while (!lists_.empty() && folders_ + folders.size() > kMaxFolders) forget(lists_.begin());
    const uint64_t ticket = next_ticket_++;
    folders_ += folders.size();
    List list;
    list.root = root;
    list.folders = std::move(folders);
    lists_.emplace(ticket, std::move(list));
    return ticket;
}

RememberedLists::List* RememberedLists::find(uint64_t ticket, const KeeperFolder& root) {
    auto found = lists_.find(ticket);
    if (found == lists_.end() || !(found->second.root == root)) return nullptr;
    return &found->second;
}

void RememberedLists::forget(std::map<uint64_t, List>::iterator list) {
    folders_ -= list->second.folders.size();
    lists_.erase(list);
}

}  // namespace oms::landlock
