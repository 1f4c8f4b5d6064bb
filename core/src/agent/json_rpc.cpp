#include "oms/core/json_rpc.hpp"

#include <unistd.h>

#include <cerrno>

namespace oms::core::rpc {

bool is_valid_id(const nlohmann::json& id) { return id.is_string() || id.is_number_integer(); }

nlohmann::json result_response(const nlohmann::json& id, nlohmann::json result) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

nlohmann::json error_response(const nlohmann::json& id, int code, const std::string& message) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

nlohmann::json notification(const std::string& method, nlohmann::json params) {
    return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

void LineWriter::send(const nlohmann::json& message) {
    const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t done = 0; !broken_ && done < line.size();) {
        const ssize_t n = write(fd_, line.data() + done, line.size() - done);
        if (n > 0)
            done += static_cast<size_t>(n);
        else if (n < 0 && errno != EINTR)
            broken_ = true;
    }
}

bool LineWriter::broken() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return broken_;
}

std::optional<LineReader::Line> LineReader::next() {
    for (;;) {
        const size_t newline = buffer_.find('\n', scanned_);
        scanned_ = buffer_.size();  // the next search starts at what arrives next
        if (newline != std::string::npos) {
            scanned_ = 0;
            Line line{buffer_.substr(0, newline), skipping_};
            buffer_.erase(0, newline + 1);
            if (skipping_) line.text.clear();
            skipping_ = false;
            return line;
        }
        if (buffer_.size() > limit_) {
            buffer_.clear();
            scanned_ = 0;
            skipping_ = true;
        }
        if (at_end_) {
            if (buffer_.empty() && !skipping_) return std::nullopt;
            Line line{skipping_ ? std::string() : buffer_, skipping_};  // a last line without its newline
            buffer_.clear();
            scanned_ = 0;
            skipping_ = false;
            return line;
        }
        char chunk[65536];
        const ssize_t n = read(fd_, chunk, sizeof chunk);
        if (n > 0)
            buffer_.append(chunk, static_cast<size_t>(n));
        else if (n == 0 || errno != EINTR)
            at_end_ = true;
    }
}

}  // namespace oms::core::rpc
