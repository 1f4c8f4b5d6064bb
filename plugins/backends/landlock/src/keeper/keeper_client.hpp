// The launcher's side of the scan keeper (keeper_server.hpp): asks which
// folders of a cache are unchanged since the cache was made, and starts the
// keeper when none answers. Any failure (no keeper yet, a wrong answer, a
// timeout) gives no answer: the launcher then checks every folder itself,
// as it does without a keeper.
#pragma once
#include "keeper_protocol.hpp"

#include <optional>
#include <string>
#include <vector>

namespace oms::landlock {

class KeeperClient final : public sdk::ScanKeeper {
public:
    // `folder`: the user's run folder base; `program`: the keeper's
    // executable. Either empty: never asks. A keeper this starts exits
    // after `idle_seconds` without a question.
    // A cache of fewer folders than `worth_asking_from` is checked folder
    // by folder: below that, one question costs more than the checks.
    KeeperClient(std::string folder, std::string program, int idle_seconds = 600,
                 size_t worth_asking_from = kFoldersWorthAQuestion)
        : folder_(std::move(folder)),
          program_(std::move(program)),
          idle_(std::to_string(idle_seconds)),
          worth_asking_from_(worth_asking_from) {}

    // A question costs about 0.2 to 0.3 ms on an idle 2-core machine
    // (connect, the peer checks, the keeper's wake-up), a cached folder's
    // check about 7 us (a 205-folder cache: 1.5 ms without the keeper, 0.3
    // with it; a 1-folder worktree: 0.12 ms without, 0.3 with). Even at a
    // few folders a question would pay; 64 leaves room for a busy machine,
    // where the keeper waits for a CPU.
    static constexpr size_t kFoldersWorthAQuestion = 64;

    // Whether a cache of `folders` folders is worth a question; a root with
    // no cache yet always is (its first walk needs the keeper's mark, and
    // only that walk tells how large the tree is).
    bool worth_asking(std::optional<size_t> folders) const override { return !folders || *folders >= worth_asking_from_; }

    // Which folders are unchanged: those of request.folders, or, when it is
    // empty, those of request.ticket's list. Sets request.mount_namespace
    // (this process's). An answer holds one word per folder of the asker's
    // (`folders` of them), but for a ticket the keeper does not know: ticket
    // 0 and no word (ask again by the folders).
    std::optional<KeeperAnswer> ask(KeeperRequest& request, size_t folders) override;

    // A ticket for the folders of a cache about to be written (0: none; no
    // keeper is started for it).
    uint64_t remember(const KeeperFolder& root, const std::string& root_path,
                      std::vector<KeeperFolder> folders) override;

private:
    std::string folder_;
    std::string program_;
    std::string idle_;
    size_t worth_asking_from_;
    bool started_ = false;  // one start per launch at most

    // The connected socket; -1 when no keeper of this user answers; -2 when
    // the one answering is another build's (it is asked to stop).
    int connect_to_keeper() const;
    std::optional<KeeperAnswer> exchange(KeeperRequest& request, bool may_start);
    void start_keeper();
};

// The keeper's executable beside the plugin holding this code, when it is there.
std::string keeper_program_beside_plugin();

}  // namespace oms::landlock
