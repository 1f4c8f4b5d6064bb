// Whether a file the keypair suffix rules hide is a Solana keypair (a JSON
// array of 64 numbers from 0 to 255, what `solana-keygen new` writes), so a
// backend can name once on stderr a file that only shares the name (a
// `locales/id.json`, a test fixture) instead of leaving the user to find out
// why it reads empty. It stays hidden either way: the answer only decides
// whether the backend says so (keypair_notice.hpp). Header-only, libc and
// the C++ standard library.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace oms::sdk {

enum class KeypairShape {
    keypair,      // a JSON array of 64 bytes
    not_keypair,  // read, and something else
    unknown,      // not read: gone, not a regular file, another file, too large, unreadable
};

// A keypair is at most 64 * 4 + 2 bytes unindented; pretty-printed with one
// number a line, under 1 KiB. Anything longer is left unknown.
constexpr size_t kMaxKeypairText = 4096;

namespace keypair_shape_detail {

constexpr int kKeypairBytes = 64;

inline void skip_space(std::string_view text, size_t& at) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
}

// One number from 0 to 255 at `at` (no sign, no fraction, no leading zeros beyond "0").
inline bool byte_at(std::string_view text, size_t& at) {
    const size_t start = at;
    int value = 0;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && at - start < 4)
        value = value * 10 + (text[at++] - '0');
    const size_t length = at - start;
    return length > 0 && length <= 3 && value <= 255 && !(length > 1 && text[start] == '0');
}

}  // namespace keypair_shape_detail

// At most kMaxKeypairText bytes of `text`.
inline KeypairShape keypair_shape_of(std::string_view text) {
    size_t at = 0;
    keypair_shape_detail::skip_space(text, at);
    if (at >= text.size() || text[at++] != '[') return KeypairShape::not_keypair;
    for (int count = 0; count < keypair_shape_detail::kKeypairBytes; ++count) {
        keypair_shape_detail::skip_space(text, at);
        if (count > 0) {
            if (at >= text.size() || text[at++] != ',') return KeypairShape::not_keypair;
            keypair_shape_detail::skip_space(text, at);
        }
        if (!keypair_shape_detail::byte_at(text, at)) return KeypairShape::not_keypair;
    }
    keypair_shape_detail::skip_space(text, at);
    if (at >= text.size() || text[at++] != ']') return KeypairShape::not_keypair;
    keypair_shape_detail::skip_space(text, at);
    return at == text.size() ? KeypairShape::keypair : KeypairShape::not_keypair;
}

// Opens `path` with O_NOFOLLOW | O_NONBLOCK (a link, FIFO or device a
// command put there is never followed nor waited on), checks that it is the
// regular file with this device and inode (the one the mask covers), and
// reads at most kMaxKeypairText bytes of it.
inline KeypairShape keypair_shape(const std::string& path, uint64_t device, uint64_t inode) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return KeypairShape::unknown;
    struct stat info {};
    KeypairShape shape = KeypairShape::unknown;
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && uint64_t(info.st_dev) == device &&
        uint64_t(info.st_ino) == inode && info.st_size >= 0 && size_t(info.st_size) <= kMaxKeypairText) {
        char buffer[kMaxKeypairText + 1];
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        // More than the size said: the file grew; leave it unknown rather than judge a part.
        if (got >= 0 && size_t(got) <= kMaxKeypairText) shape = keypair_shape_of(std::string_view(buffer, size_t(got)));
    }
    ::close(fd);
    return shape;
}

}  // namespace oms::sdk
