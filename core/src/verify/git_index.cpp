#include "oms/core/git_index.hpp"

#include <cstdint>

namespace oms::core {

namespace {

constexpr size_t kHeaderSize = 12;     // "DIRC", version, entry count
constexpr size_t kBeforeMode = 24;      // ctime and mtime (64 bits each), dev, ino (32 bits each)
constexpr size_t kAfterMode = 12;       // uid, gid, size (32 bits each); the object name follows
constexpr uint16_t kExtendedFlag = 0x4000;
constexpr uint16_t kNameLengthMask = 0x0fff;
constexpr uint32_t kModeTypeMask = 0170000;
constexpr uint32_t kModeFolder = 0040000;  // a sparse index's folder entry

// Thrown inside the parse only; parse_git_index turns it into `problem`.
struct Malformed {
    std::string why;
};

// A cursor over the bytes that never reads past their end.
class Reader {
public:
    explicit Reader(std::string_view bytes) : bytes_(bytes) {}
    size_t offset() const { return offset_; }
    size_t left() const { return bytes_.size() - offset_; }
    void skip(size_t count) {
        need(count);
        offset_ += count;
    }
    uint32_t u32() {
        need(4);
        uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(bytes_[offset_++]);
        return value;
    }
    uint16_t u16() {
        need(2);
        uint16_t value = static_cast<uint16_t>((static_cast<unsigned char>(bytes_[offset_]) << 8) |
                                               static_cast<unsigned char>(bytes_[offset_ + 1]));
        offset_ += 2;
        return value;
    }
    std::string_view take(size_t count) {
        need(count);
        std::string_view out = bytes_.substr(offset_, count);
        offset_ += count;
        return out;
    }
    // The bytes up to the next NUL, which is consumed.
    std::string_view until_nul() {
        const size_t end = bytes_.find('\0', offset_);
        if (end == std::string_view::npos) throw Malformed{"a path without its terminating NUL"};
        std::string_view out = bytes_.substr(offset_, end - offset_);
        offset_ = end + 1;
        return out;
    }
    // git's offset varint (index version 4): 7 bits a byte, each continuation adding one.
    uint64_t varint() {
        unsigned char c = byte();
        uint64_t value = c & 0x7f;
        while (c & 0x80) {
            if (value >= (uint64_t{1} << 56)) throw Malformed{"a prefix length that overflows"};
            c = byte();
            value = ((value + 1) << 7) | (c & 0x7f);
        }
        return value;
    }

private:
    unsigned char byte() {
        need(1);
        return static_cast<unsigned char>(bytes_[offset_++]);
    }
    void need(size_t count) const {
        if (count > left()) throw Malformed{"the file ends inside an entry (truncated?)"};
    }
    std::string_view bytes_;
    size_t offset_ = 0;
};

// git refuses these paths in its index too; a hostile index must not make the
// snapshot reach outside the worktree or copy a nested repository's insides.
void check_path(std::string_view path) {
    if (path.empty() || path.front() == '/') throw Malformed{"an empty or absolute path"};
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        const std::string_view part = path.substr(start, end - start);
        if (part.empty() || part == "." || part == ".." || part == ".git")
            throw Malformed{"the path '" + std::string(path) + "' has an empty, '.', '..' or '.git' part"};
        start = end + 1;
    }
}

struct Layout {
    uint32_t version = 0;
    size_t hash_size = 0;  // 20 (SHA-1) or 32 (SHA-256)
};

// No system here opens a longer path (PATH_MAX counts the NUL), so git can
// neither check out nor stat one.
constexpr size_t kMaxPathLength = 4095;
// A version 4 path is the one before it cut and extended, so a small file can
// spell long paths; every real index's paths together are smaller than the
// index itself (its 62 bytes of fixed fields per entry outweigh them), and
// this bound keeps what a crafted one makes oms hold to a few times its size.
constexpr size_t kPathBytesPerIndexByte = 8;

// The path of the entry after `previous` (version 4 strips a prefix of it).
// Never longer than kMaxPathLength: checked before anything is allocated.
void read_path(Reader& in, const Layout& layout, std::string& path) {
    if (layout.version != 4) {
        const std::string_view name = in.until_nul();
        if (name.size() > kMaxPathLength) throw Malformed{"a path longer than 4095 bytes"};
        path.assign(name);
        return;
    }
    const uint64_t strip = in.varint();
    if (strip > path.size()) throw Malformed{"a prefix longer than the path before it"};
    const std::string_view suffix = in.until_nul();
    const size_t kept = path.size() - static_cast<size_t>(strip);
    if (suffix.size() > kMaxPathLength - kept) throw Malformed{"a path longer than 4095 bytes"};
    path.resize(kept);
    path.append(suffix);
}

// Versions 2 and 3 pad each entry with NULs to a multiple of 8 bytes.
void skip_padding(Reader& in, size_t entry_start) {
    const size_t length = in.offset() - entry_start;
    in.skip(((length + 7) & ~size_t{7}) - length);
}

// git's own field: the path's length, or 0xFFF for any path that long or longer.
void check_name_length(size_t name_length, const std::string& path) {
    const bool matches = name_length == kNameLengthMask ? path.size() >= kNameLengthMask : path.size() == name_length;
    if (!matches) throw Malformed{"an entry whose name length does not match its path"};
}

// One entry: its path is read into `path` (which holds the one before it);
// returns its mode.
uint32_t read_entry(Reader& in, const Layout& layout, std::string& path) {
    const size_t start = in.offset();
    in.skip(kBeforeMode);
    const uint32_t mode = in.u32();
    in.skip(kAfterMode + layout.hash_size);
    const uint16_t flags = in.u16();
    if (flags & kExtendedFlag) {
        if (layout.version < 3) throw Malformed{"an extended entry in a version 2 index"};
        in.skip(2);
    }
    read_path(in, layout, path);
    if (layout.version != 4) skip_padding(in, start);
    check_name_length(flags & kNameLengthMask, path);
    return mode;
}

// Extensions follow the entries; the file ends with a hash of everything
// before it. A split index ("link") keeps its entries in another file.
void check_extensions(Reader& in, const Layout& layout) {
    while (in.left() > layout.hash_size) {
        const std::string_view signature = in.take(4);
        const uint32_t size = in.u32();
        if (signature == "link")
            throw Malformed{"a split index (core.splitIndex): its entries are kept in another file"};
        if (size > in.left() || in.left() - size < layout.hash_size) throw Malformed{"an extension past the end"};
        in.skip(size);
    }
    if (in.left() != layout.hash_size) throw Malformed{"the file does not end with its checksum"};
}

void judge_paths(const GitIndexParse& out) {
    for (const std::string& folder : out.sparse_folders) {
        if (folder.size() < 2 || folder.back() != '/') throw Malformed{"a folder entry without its trailing '/'"};
        check_path(std::string_view(folder).substr(0, folder.size() - 1));
    }
    for (const std::string& file : out.files) check_path(file);
}

// Entries are kept in git's order (by path, then stage), which git itself
// checks when it reads an index: an unmerged path's stages are neighbours,
// so it is listed once without a set of every path seen.
GitIndexParse parse_with(std::string_view bytes, const Layout& layout, uint32_t count) {
    Reader in(bytes);
    in.skip(kHeaderSize);
    GitIndexParse out;
    const size_t path_budget = bytes.size() * kPathBytesPerIndexByte;
    size_t path_bytes = 0;
    bool sorted = true;
    std::string path, previous;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t mode = read_entry(in, layout, path);
        if (i > 0 && path == previous) continue;  // another stage of the same path
        if (i > 0 && path < previous) sorted = false;
        path_bytes += path.size();
        if (path_bytes > path_budget)
            throw Malformed{"paths that add up to more than " + std::to_string(kPathBytesPerIndexByte) +
                            " times the index's size (a crafted version 4 index?)"};
        auto& list = (mode & kModeTypeMask) == kModeFolder ? out.sparse_folders : out.files;
        list.push_back(path);
        previous = path;
    }
    // Before any path is judged: a split index's entries may have no names.
    check_extensions(in, layout);
    judge_paths(out);  // first: a path that leaves the worktree is the graver fault
    if (!sorted) throw Malformed{"entries out of git's order (git refuses such an index too)"};
    return out;
}

}  // namespace

GitIndexParse parse_git_index(std::string_view bytes) {
    try {
        Reader header(bytes);
        if (header.take(4) != "DIRC") return {{}, {}, "not a git index (no DIRC signature)"};
        const uint32_t version = header.u32();
        if (version < 2 || version > 4) return {{}, {}, "index version " + std::to_string(version) + " is not known"};
        const uint32_t count = header.u32();
        // The object name's size is not in the index: SHA-1 is tried first, and
        // a SHA-256 repository's index fails it (lengths and the trailing
        // checksum no longer line up).
        std::string first_problem;
        for (size_t hash_size : {size_t{20}, size_t{32}}) {
            try {
                return parse_with(bytes, Layout{version, hash_size}, count);
            } catch (const Malformed& malformed) {
                if (first_problem.empty()) first_problem = malformed.why;
            }
        }
        return {{}, {}, first_problem};
    } catch (const Malformed& malformed) {
        return {{}, {}, malformed.why};
    }
}

}  // namespace oms::core
