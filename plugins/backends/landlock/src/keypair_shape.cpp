#include "keypair_shape.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>

namespace oms::landlock {

namespace {

constexpr int kKeypairBytes = 64;

void skip_space(std::string_view text, size_t& at) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
}

// One number from 0 to 255 at `at` (no sign, no fraction, no leading zeros beyond "0").
bool byte_at(std::string_view text, size_t& at) {
    const size_t start = at;
    int value = 0;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && at - start < 4)
        value = value * 10 + (text[at++] - '0');
    const size_t length = at - start;
    return length > 0 && length <= 3 && value <= 255 && !(length > 1 && text[start] == '0');
}

}  // namespace

KeypairShape keypair_shape_of(std::string_view text) {
    size_t at = 0;
    skip_space(text, at);
    if (at >= text.size() || text[at++] != '[') return KeypairShape::not_keypair;
    for (int count = 0; count < kKeypairBytes; ++count) {
        skip_space(text, at);
        if (count > 0) {
            if (at >= text.size() || text[at++] != ',') return KeypairShape::not_keypair;
            skip_space(text, at);
        }
        if (!byte_at(text, at)) return KeypairShape::not_keypair;
    }
    skip_space(text, at);
    if (at >= text.size() || text[at++] != ']') return KeypairShape::not_keypair;
    skip_space(text, at);
    return at == text.size() ? KeypairShape::keypair : KeypairShape::not_keypair;
}

KeypairShape keypair_shape(const std::string& path, uint64_t device, uint64_t inode) {
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

}  // namespace oms::landlock
