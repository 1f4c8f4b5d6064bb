#include "oms/core/bounded_text.hpp"

#include <algorithm>

namespace oms::core {

BoundedText::BoundedText(size_t limit) : head_limit_(limit / 4), tail_limit_(limit - limit / 4) {}

void BoundedText::append(std::string_view data) {
    total_ += data.size();
    const size_t to_head = std::min(data.size(), head_limit_ - head_.size());
    head_.append(data.substr(0, to_head));
    tail_.append(data.substr(to_head));
    // Trimmed in bulk, not per byte: at most twice the limit is ever held.
    if (tail_.size() > 2 * tail_limit_) tail_.erase(0, tail_.size() - tail_limit_);
}

size_t BoundedText::kept() const { return head_.size() + std::min(tail_.size(), tail_limit_); }

std::string BoundedText::text() const {
    const std::string tail = tail_.substr(tail_.size() - std::min(tail_.size(), tail_limit_));
    if (!truncated()) return head_ + tail;
    return head_ + "\n[oms: " + std::to_string(total_ - kept()) + " bytes left out]\n" + tail;
}

}  // namespace oms::core
