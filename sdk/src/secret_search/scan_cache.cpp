#include <oms/scan_cache.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string_view>

namespace oms::sdk {

namespace {

constexpr char kMagic[8] = {'O', 'M', 'S', 'S', 'C', 'A', 'N', '\n'};
// 2: a folder whose name matches is a match, not a subfolder; 3: the shape
// (names, links) and each folder's named entries and links; 4: the scan
// keeper's mark and the summary.
constexpr uint32_t kVersion = 5;
constexpr size_t kMaxFileBytes = size_t(256) << 20;  // far above any real tree; refuses nonsense sizes

uint64_t fnv1a(const char* data, size_t size) {
    uint64_t hash = 1469598103934665603ull;
    for (size_t i = 0; i < size; ++i) {
        hash ^= static_cast<unsigned char>(data[i]);
        hash *= 1099511628211ull;
    }
    return hash;
}

// A stored checksum against the bytes it covers. A fuzzing build (the
// macro libFuzzer's users share) accepts any, so that the fuzzer reaches
// the parse behind them: a checksum guards against damage, not an attacker
// (the file is the user's own, 0600), and the parse must hold either way.
bool sum_matches(uint64_t stored, const char* data, size_t size) {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    (void)stored, (void)data, (void)size;
    return true;
#else
    return stored == fnv1a(data, size);
#endif
}

class Writer {
public:
    void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void u32(uint32_t v) { raw(&v, sizeof v); }
    void u64(uint64_t v) { raw(&v, sizeof v); }
    void str(const std::string& s) {
        u32(static_cast<uint32_t>(s.size()));
        out_ += s;
    }
    void raw(const void* p, size_t n) {
        if (n > 0) out_.append(static_cast<const char*>(p), n);  // an empty vector's data() may be null
    }
    std::string& bytes() { return out_; }

private:
    std::string out_;
};

// Every read is bounds-checked; the first failure makes the whole load fail.
class Reader {
public:
    Reader(std::string_view bytes, size_t end) : bytes_(bytes), end_(end) {}
    bool ok() const { return ok_; }
    uint8_t u8() {
        uint8_t v = 0;
        raw(&v, 1);
        return v;
    }
    uint32_t u32() {
        uint32_t v = 0;
        raw(&v, sizeof v);
        return v;
    }
    uint64_t u64() {
        uint64_t v = 0;
        raw(&v, sizeof v);
        return v;
    }
    std::string str() {
        uint32_t n = u32();
        if (!ok_ || n > end_ - at_) return fail(), std::string();
        std::string s(bytes_.substr(at_, n));
        at_ += n;
        return s;
    }
    // A count of items that each take at least `min_size` bytes.
    uint32_t count(size_t min_size) {
        uint32_t n = u32();
        if (ok_ && size_t(n) * min_size > end_ - at_) fail();
        return ok_ ? n : 0;
    }
    void raw(void* p, size_t n) {
        if (!ok_ || n > end_ - at_) return fail();
        if (n == 0) return;  // an empty vector's data() may be null: memcpy must not see it
        std::memcpy(p, bytes_.data() + at_, n);
        at_ += n;
    }
    bool at_end() const { return at_ == end_; }
    size_t position() const { return at_; }

private:
    void fail() { ok_ = false; }
    std::string_view bytes_;
    size_t end_;
    size_t at_ = 0;
    bool ok_ = true;
};

std::string hex(uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4) out[i] = digits[v & 15];
    return out;
}

// The file mapped read-only: a large cache is then taken from the page cache
// a 64 KB window per fault, instead of being copied into fresh memory a
// page per fault (about 1.5 ms for a 400 KB cache on a virtual machine).
class MappedFile {
public:
    MappedFile(void* data, size_t size) : data_(data), size_(size) {}
    ~MappedFile() {
        if (data_ != MAP_FAILED && size_ > 0) munmap(data_, size_);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

private:
    void* data_;
    size_t size_;
};

std::unique_ptr<MappedFile> read_own_file(const std::string& file) {
    int fd = open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st;
    std::unique_ptr<MappedFile> out;
    // Only a regular file of ours that nobody else may write is believed.
    // oms replaces it by rename, never in place, so the mapping does not
    // change under the reader (another program of the user truncating it in
    // place would end oms with SIGBUS, as it could end it with any signal).
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 022) == 0 &&
        st.st_size > 0 && size_t(st.st_size) <= kMaxFileBytes) {
        void* data = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (data != MAP_FAILED) out = std::make_unique<MappedFile>(data, size_t(st.st_size));
    }
    close(fd);
    return out;
}

void write_names(Writer& w, const std::vector<std::string>& names) {
    w.u32(static_cast<uint32_t>(names.size()));
    for (const auto& name : names) w.str(name);
}

std::vector<std::string> read_names(Reader& r) {
    std::vector<std::string> names;
    for (uint32_t n = r.count(4); n > 0 && r.ok(); --n) names.push_back(r.str());
    return names;
}

void write_folder(Writer& w, const std::string& relative, const FolderRecord& r) {
    w.str(relative);
    w.u64(r.stamp.device);
    w.u64(r.stamp.inode);
    w.u64(static_cast<uint64_t>(r.stamp.mtime_ns));
    w.u64(static_cast<uint64_t>(r.stamp.ctime_ns));
    w.u8(r.trusted ? 1 : 0);
    w.u32(static_cast<uint32_t>(r.subfolders.size()));
    for (const auto& name : r.subfolders) w.str(name);
    w.u32(static_cast<uint32_t>(r.matches.size()));
    for (const auto& m : r.matches) {
        w.str(m.name);
        w.u8(m.symlink ? 1 : 0);
    }
    write_names(w, r.named);
    write_names(w, r.links);
}

FolderRecord read_folder(Reader& r) {
    FolderRecord f;
    f.stamp.device = r.u64();
    f.stamp.inode = r.u64();
    f.stamp.mtime_ns = static_cast<int64_t>(r.u64());
    f.stamp.ctime_ns = static_cast<int64_t>(r.u64());
    f.trusted = r.u8() == 1;
    for (uint32_t n = r.count(4); n > 0 && r.ok(); --n) f.subfolders.push_back(r.str());
    for (uint32_t n = r.count(5); n > 0 && r.ok(); --n) {
        NameMatch m;
        m.name = r.str();
        m.symlink = r.u8() == 1;
        f.matches.push_back(std::move(m));
    }
    f.named = read_names(r);
    f.links = read_names(r);
    return f;
}

// The summary in two parts, each with a checksum of its own: what a start
// whose folders are all vouched for uses (the mark, the ticket, the
// findings), then the folders' ids, read only when the keeper must be told
// them or answered for some of them only.
void write_summary(Writer& w, const std::string& root, const CacheEntries& folders, const WalkFacts& facts) {
    ScanSummary s;
    s.folders = folder_ids(folders);
    for (const auto& [relative, record] : folders) {
        const std::string folder = relative.empty() ? root : root + "/" + relative;
        if (relative.empty()) s.root = {record->stamp.device, record->stamp.inode};
        for (const auto& match : record->matches)
            (match.symlink ? s.secret_links : s.secrets).push_back(folder + "/" + match.name);
        for (const auto& name : record->named) s.named.push_back(folder + "/" + name);
        for (const auto& name : record->links) s.links.push_back(folder + "/" + name);
    }
    s.secrets.insert(s.secrets.end(), facts.too_deep.begin(), facts.too_deep.end());
    write_names(w, facts.skip);
    w.u64(s.root.device);
    w.u64(s.root.inode);
    w.u32(static_cast<uint32_t>(s.folders.size()));
    using Names = const std::vector<std::string>*;
    for (Names list : std::initializer_list<Names>{&s.secrets, &s.secret_links, &s.named, &s.links, &facts.too_deep})
        write_names(w, *list);
    w.u8(facts.passed_over ? 1 : 0);
    w.u64(fnv1a(w.bytes().data(), w.bytes().size()));  // the summary's own checksum
    const size_t ids_at = w.bytes().size();
    w.raw(s.folders.data(), s.folders.size() * sizeof(KeeperFolder));
    w.u64(fnv1a(w.bytes().data() + ids_at, w.bytes().size() - ids_at));  // the ids' own
}

// Reads the header and the summary up to the folders' ids; `r` then stands
// at the ids.
bool read_head(Reader& r, std::string_view bytes, const std::string& root, const ScanShape& shape,
               ScanSummary& s) {
    char magic[sizeof kMagic] = {};
    r.raw(magic, sizeof magic);
    if (std::memcmp(magic, kMagic, sizeof kMagic) != 0 || r.u32() != kVersion) return false;
    if (r.str() != root) return false;
    ScanShape stored;
    stored.suffixes = read_names(r);
    stored.names = read_names(r);
    stored.links = r.u8() == 1;
    if (!r.ok() || !(stored == shape)) return false;
    r.raw(s.keeper.id.data(), s.keeper.id.size());
    s.keeper.moment = r.u64();
    s.ticket = r.u64();
    s.skip = read_names(r);
    s.root.device = r.u64();
    s.root.inode = r.u64();
    s.folder_count = r.u32();
    for (auto* list : {&s.secrets, &s.secret_links, &s.named, &s.links, &s.too_deep}) *list = read_names(r);
    s.passed_over = r.u8() != 0;
    const size_t summed = r.position();
    const uint64_t stored_sum = r.u64();
    return r.ok() && sum_matches(stored_sum, bytes.data(), summed);
}

// The folders' ids after the head; `r` then stands at the records.
bool read_folder_ids(Reader& r, std::string_view bytes, size_t count, std::vector<KeeperFolder>& ids) {
    const size_t at = r.position();
    if (count > (bytes.size() - at) / sizeof(KeeperFolder)) return false;
    ids.resize(count);
    r.raw(ids.data(), count * sizeof(KeeperFolder));
    const size_t summed = r.position() - at;
    const uint64_t stored_sum = r.u64();
    return r.ok() && sum_matches(stored_sum, bytes.data() + at, summed);
}

}  // namespace

std::unique_ptr<ScanCacheFile> ScanCacheFile::open(const std::string& file, const std::string& root,
                                                   const ScanShape& shape) {
    std::shared_ptr<const MappedFile> mapped = read_own_file(file);
    if (!mapped) return nullptr;
    const std::string_view bytes = mapped->bytes();
    Reader r(bytes, bytes.size());
    std::unique_ptr<ScanCacheFile> out(new ScanCacheFile);
    if (!read_head(r, bytes, root, shape, out->summary_)) return nullptr;
    out->mapping_ = mapped;
    out->bytes_ = bytes;
    out->root_ = root;
    out->shape_ = shape;
    return out;
}

std::optional<std::vector<KeeperFolder>> ScanCacheFile::folders() const {
    Reader r(bytes_, bytes_.size());
    ScanSummary again;
    std::vector<KeeperFolder> ids;
    if (!read_head(r, bytes_, root_, shape_, again) || !read_folder_ids(r, bytes_, again.folder_count, ids))
        return std::nullopt;
    return ids;
}

// The whole file's checksum, then the records after the summary.
std::optional<ScanCache> ScanCacheFile::records() const {
    if (bytes_.size() < sizeof(uint64_t)) return std::nullopt;
    const size_t body_end = bytes_.size() - sizeof(uint64_t);
    uint64_t stored_sum = 0;
    std::memcpy(&stored_sum, bytes_.data() + body_end, sizeof stored_sum);
    if (!sum_matches(stored_sum, bytes_.data(), body_end)) return std::nullopt;
    Reader r(bytes_, body_end);
    ScanSummary again;
    std::vector<KeeperFolder> ids;
    if (!read_head(r, bytes_, root_, shape_, again) || !read_folder_ids(r, bytes_, again.folder_count, ids))
        return std::nullopt;
    ScanCache cache;
    cache.root = root_;
    cache.shape = shape_;
    cache.keeper = summary_.keeper;
    const uint32_t folders = r.count(4 + 8 * 4 + 1 + 4 * 4);
    cache.folders.reserve(folders);
    for (uint32_t n = folders; n > 0 && r.ok(); --n) {
        std::string relative = r.str();
        FolderRecord record = read_folder(r);
        cache.folders.emplace(std::move(relative), std::move(record));
    }
    if (!r.ok() || !r.at_end()) return std::nullopt;
    return cache;
}

std::optional<ScanSummary> load_scan_summary(const std::string& file, const std::string& root,
                                             const ScanShape& shape) {
    auto cache = ScanCacheFile::open(file, root, shape);
    if (!cache) return std::nullopt;
    ScanSummary summary = cache->summary();
    auto ids = cache->folders();
    if (!ids) return std::nullopt;
    summary.folders = std::move(*ids);
    return summary;
}

std::vector<KeeperFolder> folder_ids(const CacheEntries& folders) {
    std::vector<KeeperFolder> ids;
    ids.reserve(folders.size());
    for (const auto& [relative, record] : folders) ids.push_back({record->stamp.device, record->stamp.inode});
    return ids;
}

std::string cache_file_for(const std::string& cache_dir, const std::string& root) {
    return cache_dir + "/" + hex(fnv1a(root.data(), root.size()));
}

std::optional<ScanCache> load_scan_cache(const std::string& file, const std::string& root, const ScanShape& shape) {
    auto cache = ScanCacheFile::open(file, root, shape);
    if (!cache) return std::nullopt;
    return cache->records();
}

bool save_scan_cache(const std::string& file, const ScanCache& cache) {
    CacheEntries folders;
    folders.reserve(cache.folders.size());
    for (const auto& [relative, record] : cache.folders) folders.emplace_back(relative, &record);
    return save_scan_cache(file, cache.root, cache.shape, cache.keeper, folders);
}

bool save_scan_cache(const std::string& file, const std::string& root, const ScanShape& shape,
                     const KeeperMark& keeper, const CacheEntries& folders, const WalkFacts& facts,
                     uint64_t ticket) {
    Writer w;
    w.raw(kMagic, sizeof kMagic);
    w.u32(kVersion);
    w.str(root);
    write_names(w, shape.suffixes);
    write_names(w, shape.names);
    w.u8(shape.links ? 1 : 0);
    w.raw(keeper.id.data(), keeper.id.size());
    w.u64(keeper.moment);
    w.u64(ticket);
    write_summary(w, root, folders, facts);
    w.u32(static_cast<uint32_t>(folders.size()));
    for (const auto& [relative, record] : folders) write_folder(w, relative, *record);
    w.u64(fnv1a(w.bytes().data(), w.bytes().size()));

    std::string temp = file + ".XXXXXX";
    int fd = mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) return false;
    const std::string& bytes = w.bytes();
    size_t done = 0;
    bool ok = fchmod(fd, 0600) == 0;
    while (ok && done < bytes.size()) {
        ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
        ok = n > 0;
        if (ok) done += size_t(n);
    }
    ok = close(fd) == 0 && ok;
    if (ok && rename(temp.c_str(), file.c_str()) == 0) return true;
    unlink(temp.c_str());
    return false;
}

}  // namespace oms::sdk
