// The git index reader against crafted version 4 indexes, whose prefix
// compression lets a small file spell long paths: what it holds while it
// reads is bounded by the file's size (measured as the peak resident size of
// a child that parses it), and a path is never longer than a system can open.
#include "oms/core/git_index.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using oms::core::parse_git_index;

namespace {

void put_u32(std::string& out, uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

// git's offset varint (version 4 only).
void put_varint(std::string& out, uint64_t value) {
    std::string reversed(1, static_cast<char>(value & 0x7f));
    while (value >>= 7) {
        --value;
        reversed.push_back(static_cast<char>(0x80 | (value & 0x7f)));
    }
    out.append(reversed.rbegin(), reversed.rend());
}

struct V4Entry {
    uint64_t strip;      // bytes cut from the end of the path before
    std::string suffix;  // what is added after
    size_t path_length;  // the resulting path's length, for the flags
};

// A version 4 index with SHA-1 names: the fixed fields are zeros but the mode.
std::string v4_index(const std::vector<V4Entry>& entries) {
    std::string out = "DIRC";
    put_u32(out, 4);
    put_u32(out, static_cast<uint32_t>(entries.size()));
    for (const V4Entry& entry : entries) {
        out.append(24, '\0');       // ctime, mtime, dev, ino
        put_u32(out, 0100644);      // a regular file
        out.append(12 + 20, '\0');  // uid, gid, size, object name
        const size_t length = entry.path_length < 0xfff ? entry.path_length : 0xfff;
        out.push_back(static_cast<char>(length >> 8));
        out.push_back(static_cast<char>(length & 0xff));
        put_varint(out, entry.strip);
        out += entry.suffix;
        out.push_back('\0');
    }
    out.append(20, '\0');  // the checksum's place (not verified by the reader)
    return out;
}

// Paths that each add one byte to the one before: the total grows with the
// square of the file's size.
std::string growing_paths(size_t count) {
    std::vector<V4Entry> entries;
    for (size_t i = 0; i < count; ++i) entries.push_back({0, "x", i + 1});
    return v4_index(entries);
}

// Distinct paths of `length` bytes, in order: a long common prefix spelled
// once, then each entry changes its last six digits.
std::string long_paths(size_t count, size_t length) {
    std::vector<V4Entry> entries;
    char digits[24];  // room for any size_t
    for (size_t i = 0; i < count; ++i) {
        std::snprintf(digits, sizeof digits, "%06zu", i);
        const std::string prefix = i == 0 ? std::string(length - 6, 'p') : "";
        entries.push_back({i == 0 ? uint64_t{0} : uint64_t{6}, prefix + digits, length});
    }
    return v4_index(entries);
}

struct Measured {
    bool parsed_without_problem = false;
    long peak_growth_kb = -1;  // how far the parse raised the peak resident size
};

// Parses `bytes` in a child, so the peak resident size is the parse's alone.
Measured parse_in_child(const std::string& bytes) {
    int pipe_fds[2];
    REQUIRE(pipe(pipe_fds) == 0);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        rusage before{}, after{};
        getrusage(RUSAGE_SELF, &before);
        const bool ok = !parse_git_index(bytes).problem;
        getrusage(RUSAGE_SELF, &after);
        const long result[2] = {ok ? 1L : 0L, after.ru_maxrss - before.ru_maxrss};
        const bool written = write(pipe_fds[1], result, sizeof result) == static_cast<ssize_t>(sizeof result);
        _exit(written ? 0 : 1);
    }
    close(pipe_fds[1]);
    long result[2] = {0, -1};
    const ssize_t got = read(pipe_fds[0], result, sizeof result);
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(got == static_cast<ssize_t>(sizeof result));
    REQUIRE(WIFEXITED(status));
    return {result[0] == 1, result[1]};
}

// The sanitizers keep freed memory in quarantine: the resident size says
// nothing about the reader there, so only the results are checked.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kResidentSizeMeaningful = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kResidentSizeMeaningful = false;
#else
constexpr bool kResidentSizeMeaningful = true;
#endif
#else
constexpr bool kResidentSizeMeaningful = true;
#endif

// What the reader may hold: a few times the file (its lists of paths) and
// a little for the allocator.
long bound_kb(const std::string& bytes) { return static_cast<long>(10 * bytes.size() / 1024) + 4096; }

}  // namespace

TEST_CASE("git index: paths growing by a byte an entry are refused, in memory bounded by the file", "[git-index]") {
    const std::string index = growing_paths(16000);  // about 1 MB, 128 MB of paths
    const auto parsed = parse_git_index(index);
    REQUIRE(parsed.problem);
    CHECK(parsed.files.empty());
    // Positive control: the same shape, 500 entries, is read in full.
    const auto shorter = parse_git_index(growing_paths(500));
    INFO(shorter.problem.value_or("no problem"));
    REQUIRE_FALSE(shorter.problem);
    CHECK(shorter.files.size() == 500);
    CHECK(shorter.files.back() == std::string(500, 'x'));
    if (!kResidentSizeMeaningful) return;
    const Measured measured = parse_in_child(index);
    CHECK_FALSE(measured.parsed_without_problem);
    CHECK(measured.peak_growth_kb < bound_kb(index));
}

TEST_CASE("git index: a path is at most 4095 bytes long", "[git-index]") {
    const auto parsed = parse_git_index(v4_index({{0, std::string(4096, 'x'), 4096}}));
    REQUIRE(parsed.problem);
    CHECK(*parsed.problem == "a path longer than 4095 bytes");
    // Positive control: 4095 bytes are fine.
    const auto fine = parse_git_index(v4_index({{0, std::string(4095, 'x'), 4095}}));
    REQUIRE_FALSE(fine.problem);
    CHECK(fine.files == std::vector<std::string>{std::string(4095, 'x')});
}

TEST_CASE("git index: long distinct paths spelled by a small file are refused past 8 times its size", "[git-index]") {
    const std::string index = long_paths(15000, 4000);  // about 1 MB spelling 60 MB of paths
    const auto parsed = parse_git_index(index);
    REQUIRE(parsed.problem);
    CHECK_THAT(*parsed.problem, Catch::Contains("more than 8 times the index's size"));
    // Positive control: 300-byte paths (4 times the file) are all listed.
    const auto moderate = parse_git_index(long_paths(15000, 300));
    INFO(moderate.problem.value_or("no problem"));
    REQUIRE_FALSE(moderate.problem);
    REQUIRE(moderate.files.size() == 15000);
    CHECK(moderate.files[14999] == std::string(294, 'p') + "014999");
    if (!kResidentSizeMeaningful) return;
    const Measured measured = parse_in_child(index);
    CHECK_FALSE(measured.parsed_without_problem);
    CHECK(measured.peak_growth_kb < bound_kb(index));
}

TEST_CASE("git index: the name length 0xFFF is checked against the path", "[git-index]") {
    // A 1-byte path whose entry claims 0xFFF (4095 bytes or more).
    std::string index = v4_index({{0, "a", 0xfff}});
    const auto parsed = parse_git_index(index);
    REQUIRE(parsed.problem);
    CHECK(*parsed.problem == "an entry whose name length does not match its path");
    // Positive control: the same entry with its true length.
    const auto fine = parse_git_index(v4_index({{0, "a", 1}}));
    REQUIRE_FALSE(fine.problem);
    CHECK(fine.files == std::vector<std::string>{"a"});
}

TEST_CASE("git index: entries out of git's order are refused", "[git-index]") {
    const auto parsed = parse_git_index(v4_index({{0, "b", 1}, {1, "a", 1}}));
    REQUIRE(parsed.problem);
    CHECK_THAT(*parsed.problem, Catch::Contains("out of git's order"));
    const auto fine = parse_git_index(v4_index({{0, "a", 1}, {1, "b", 1}}));
    REQUIRE_FALSE(fine.problem);
    CHECK(fine.files == std::vector<std::string>{"a", "b"});
}
