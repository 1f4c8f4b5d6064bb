// Reading and writing small text files (config snippets, /proc entries,
// markers) with plain POSIX calls. Plugins link their C++ runtime statically
// (see OmsPlugin.cmake), and the iostream classes would bring the whole
// locale machinery into each plugin and initialise it at every load; these
// two functions cost nothing at load time.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <optional>
#include <string>

namespace oms::sdk {

// The whole file; nullopt when it cannot be opened or read, or is longer
// than `limit` bytes (these are small files by contract, and a cut-off
// file must not pass for a whole one).
inline std::optional<std::string> read_text_file(const std::string& path, size_t limit = 1 << 20) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string text;
    char buffer[4096];
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0) break;
        text.append(buffer, static_cast<size_t>(n));
        if (text.size() > limit) break;
    }
    ::close(fd);
    if (text.size() > limit) return std::nullopt;
    return text;
}

// Replaces the file's content (created 0600 when missing). False on failure.
inline bool write_text_file(const std::string& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    return ::close(fd) == 0 && done == text.size();
}

}  // namespace oms::sdk
