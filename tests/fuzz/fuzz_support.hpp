// What several fuzz targets share: a property check that stops the run with
// a message (libFuzzer then saves the input), and a private file holding
// the input for the parsers that read files.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace oms::fuzz {

// A property of the parser's answer that must hold for every input.
#define OMS_FUZZ_REQUIRE(condition)                                                                     \
    do {                                                                                                \
        if (!(condition)) {                                                                             \
            std::fprintf(stderr, "fuzz property broken: %s (%s:%d)\n", #condition, __FILE__, __LINE__); \
            std::abort();                                                                               \
        }                                                                                               \
    } while (0)

inline std::string_view as_text(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// One file per fuzzing process, rewritten for each input (mode 0600, ours).
class InputFile {
public:
    explicit InputFile(const char* name) {
        const char* base = std::getenv("TMPDIR");
        path_ = std::string(base && *base ? base : "/tmp") + "/oms-fuzz-" + name + "-" + std::to_string(getpid());
    }
    ~InputFile() { unlink(path_.c_str()); }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    const std::string& write(std::string_view bytes) {
        unlink(path_.c_str());  // a fresh inode: a reader that kept the old mapping is not affected
        const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        OMS_FUZZ_REQUIRE(fd >= 0);
        for (size_t done = 0; done < bytes.size();) {
            const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
            OMS_FUZZ_REQUIRE(n > 0);
            done += static_cast<size_t>(n);
        }
        close(fd);
        return path_;
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// True when `text` holds no NUL and no other control byte (C0 or DEL).
inline bool printable_bytes(std::string_view text) {
    for (unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return false;
    return true;
}

}  // namespace oms::fuzz
