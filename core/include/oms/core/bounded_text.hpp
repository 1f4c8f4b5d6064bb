// A stream's output kept within a size: its start and its end, with the
// number of bytes left out in between (the end of a build log usually says
// why it failed, its start what ran).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace oms::core {

class BoundedText {
public:
    // Keeps at most `limit` bytes: a quarter from the start, the rest from the end.
    explicit BoundedText(size_t limit);
    void append(std::string_view data);
    size_t total() const { return total_; }
    bool truncated() const { return total_ > kept(); }
    // Start and end joined by a line that says how much is left out.
    std::string text() const;

private:
    size_t kept() const;
    size_t head_limit_, tail_limit_;
    std::string head_, tail_;
    size_t total_ = 0;
};

}  // namespace oms::core
