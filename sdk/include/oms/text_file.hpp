// Reading and writing small text files (config snippets, /proc entries,
// markers) with plain POSIX calls. Plugins link their C++ runtime statically
// (see OmsPlugin.cmake), and the iostream classes would bring the whole
// locale machinery into each plugin and initialise it at every load; these
// two functions cost nothing at load time.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <string>

namespace oms::sdk {

// The rest of an open file; nullopt when it cannot be read or is longer
// than `limit` bytes (a cut-off file must not pass for a whole one). The
// descriptor stays open: the caller owns it.
inline std::optional<std::string> read_text_fd(int fd, size_t limit = 1 << 20) {
    std::string text;
    char buffer[4096];
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return std::nullopt;
        if (n == 0) break;
        text.append(buffer, static_cast<size_t>(n));
        if (text.size() > limit) return std::nullopt;
    }
    return text;
}

// Opens a regular file for reading, never blocking: O_NONBLOCK keeps a FIFO
// (or a device) put where a small file was expected from stalling the
// caller, and anything but a regular file is refused after the open. -1
// when it cannot be opened or is not a regular file.
inline int open_regular_file(const std::string& path, int extra_flags = 0) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | extra_flags);
    if (fd < 0) return -1;
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// The whole regular file (small files by contract: config snippets, /proc
// entries, markers); nullopt when it cannot be opened or read, is not a
// regular file, or is longer than `limit` bytes.
inline std::optional<std::string> read_text_file(const std::string& path, size_t limit = 1 << 20) {
    int fd = open_regular_file(path);
    if (fd < 0) return std::nullopt;
    auto text = read_text_fd(fd, limit);
    ::close(fd);
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
