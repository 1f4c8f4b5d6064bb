#include "oms/core/git_index.hpp"

#include <cstdint>
#include <set>

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

struct Entry {
    std::string path;
    uint32_t mode = 0;
};

// One entry; `previous` is the path before it (version 4 strips a prefix of it).
Entry read_entry(Reader& in, const Layout& layout, const std::string& previous) {
    const size_t start = in.offset();
    in.skip(kBeforeMode);
    const uint32_t mode = in.u32();
    in.skip(kAfterMode + layout.hash_size);
    const uint16_t flags = in.u16();
    if (flags & kExtendedFlag) {
        if (layout.version < 3) throw Malformed{"an extended entry in a version 2 index"};
        in.skip(2);
    }
    const size_t name_length = flags & kNameLengthMask;
    std::string path;
    if (layout.version == 4) {
        const uint64_t strip = in.varint();
        if (strip > previous.size()) throw Malformed{"a prefix longer than the path before it"};
        path = previous.substr(0, previous.size() - static_cast<size_t>(strip));
        path += in.until_nul();
    } else {
        path = std::string(in.until_nul());
        const size_t fixed = in.offset() - start - path.size() - 1;
        const size_t padded = (fixed + path.size() + 8) & ~size_t{7};
        in.skip(padded - (fixed + path.size() + 1));  // the NUL padding
    }
    if (name_length != kNameLengthMask && name_length != path.size())
        throw Malformed{"an entry whose name length does not match its path"};
    return {std::move(path), mode};
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

GitIndexParse parse_with(std::string_view bytes, const Layout& layout, uint32_t count) {
    Reader in(bytes);
    in.skip(kHeaderSize);
    std::vector<Entry> entries;
    std::string previous;
    for (uint32_t i = 0; i < count; ++i) {
        entries.push_back(read_entry(in, layout, previous));
        previous = entries.back().path;
    }
    // Before any path is judged: a split index's entries may have no names.
    check_extensions(in, layout);
    GitIndexParse out;
    std::set<std::string> seen;
    for (Entry& entry : entries) {
        std::string& path = entry.path;
        if ((entry.mode & kModeTypeMask) == kModeFolder) {
            if (path.size() < 2 || path.back() != '/') throw Malformed{"a folder entry without its trailing '/'"};
            check_path(std::string_view(path).substr(0, path.size() - 1));
            out.sparse_folders.push_back(path);
            continue;
        }
        check_path(path);
        // An unmerged path has an entry per stage; it is one file.
        if (seen.insert(path).second) out.files.push_back(std::move(path));
    }
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
