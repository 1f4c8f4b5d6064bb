#include "keeper_protocol.hpp"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace oms::landlock {

namespace {

class Out {
public:
    template <class T>
    void put(const T& value) {
        bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    }
    void put_bytes(const void* data, size_t size) {
        if (size > 0) bytes_.append(static_cast<const char*>(data), size);  // an empty vector's data() may be null
    }
    void reserve(size_t size) { bytes_.reserve(size); }
    std::string take() { return std::move(bytes_); }

private:
    std::string bytes_;
};

// Bounds-checked: the first short read fails the whole message.
class In {
public:
    explicit In(const std::string& bytes) : bytes_(bytes) {}
    template <class T>
    T get() {
        T value{};
        get_bytes(&value, sizeof value);
        return value;
    }
    void get_bytes(void* data, size_t size) {
        if (!ok_ || bytes_.size() - at_ < size) {
            ok_ = false;
            return;
        }
        if (size == 0) return;  // an empty vector's data() may be null: memcpy must not see it
        std::memcpy(data, bytes_.data() + at_, size);
        at_ += size;
    }
    // A count of items of `each` bytes that the rest of the message can hold.
    uint32_t count(size_t each) {
        const uint32_t n = get<uint32_t>();
        if (ok_ && (bytes_.size() - at_) / each < n) ok_ = false;
        return ok_ ? n : 0;
    }
    bool finished() const { return ok_ && at_ == bytes_.size(); }

private:
    const std::string& bytes_;
    size_t at_ = 0;
    bool ok_ = true;
};

bool header_ok(In& in) { return in.get<uint32_t>() == kKeeperMagic && in.get<uint32_t>() == kKeeperVersion; }

bool write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

bool read_all(int fd, char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = recv(fd, data, size, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

}  // namespace

std::string encode(const KeeperRequest& request) {
    Out out;
    out.reserve(64 + request.root_path.size() + request.folders.size() * sizeof(KeeperFolder));
    out.put(kKeeperMagic);
    out.put(kKeeperVersion);
    out.put(uint32_t(request.kind));
    out.put(request.mount_namespace);
    out.put(request.since.id);
    out.put(request.since.moment);
    out.put(request.root);
    out.put(uint32_t(request.root_path.size()));
    out.put_bytes(request.root_path.data(), request.root_path.size());
    out.put(request.ticket);
    out.put(uint32_t(request.folders.size()));
    out.put_bytes(request.folders.data(), request.folders.size() * sizeof(KeeperFolder));  // plain pairs of u64
    return out.take();
}

bool decode(const std::string& bytes, KeeperRequest& out) {
    In in(bytes);
    if (!header_ok(in)) return false;
    const uint32_t kind = in.get<uint32_t>();
    if (kind != uint32_t(KeeperAsk::unchanged) && kind != uint32_t(KeeperAsk::remember)) return false;
    out.kind = KeeperAsk(kind);
    out.mount_namespace = in.get<uint64_t>();
    out.since.id = in.get<KeeperId>();
    out.since.moment = in.get<uint64_t>();
    out.root = in.get<KeeperFolder>();
    out.root_path.resize(in.count(1));
    in.get_bytes(out.root_path.data(), out.root_path.size());
    out.ticket = in.get<uint64_t>();
    out.folders.resize(in.count(sizeof(KeeperFolder)));
    in.get_bytes(out.folders.data(), out.folders.size() * sizeof(KeeperFolder));
    return in.finished();
}

std::string encode(const KeeperAnswer& answer) {
    Out out;
    out.put(kKeeperMagic);
    out.put(kKeeperVersion);
    out.put(answer.now.id);
    out.put(answer.now.moment);
    out.put(answer.ticket);
    out.put(uint32_t(answer.unchanged.size()));
    std::string bits((answer.unchanged.size() + 7) / 8, '\0');
    for (size_t i = 0; i < answer.unchanged.size(); ++i)
        if (answer.unchanged[i]) bits[i / 8] = char(bits[i / 8] | (1 << (i % 8)));
    out.put_bytes(bits.data(), bits.size());
    return out.take();
}

bool decode(const std::string& bytes, KeeperAnswer& out) {
    In in(bytes);
    if (!header_ok(in)) return false;
    out.now.id = in.get<KeeperId>();
    out.now.moment = in.get<uint64_t>();
    out.ticket = in.get<uint64_t>();
    const uint32_t count = in.get<uint32_t>();
    if ((size_t(count) + 7) / 8 > bytes.size()) return false;
    std::string bits((size_t(count) + 7) / 8, '\0');
    in.get_bytes(bits.data(), bits.size());
    out.unchanged.assign(count, false);
    for (size_t i = 0; i < count; ++i) out.unchanged[i] = (bits[i / 8] >> (i % 8)) & 1;
    return in.finished();
}

bool send_message(int fd, const std::string& bytes) {
    const uint32_t size = uint32_t(bytes.size());
    return bytes.size() <= kKeeperMaxMessage && write_all(fd, reinterpret_cast<const char*>(&size), sizeof size) &&
           write_all(fd, bytes.data(), bytes.size());
}

// Grown as the bytes arrive: a peer that claims 64 MB and sends nothing
// costs nothing (found by fuzzing: it cost a 64 MB buffer per connection).
bool receive_message(int fd, std::string& bytes) {
    constexpr size_t kPiece = 64 * 1024;
    uint32_t size = 0;
    if (!read_all(fd, reinterpret_cast<char*>(&size), sizeof size) || size > kKeeperMaxMessage) return false;
    bytes.clear();
    while (bytes.size() < size) {
        const size_t have = bytes.size();
        const size_t piece = std::min(kPiece, size - have);
        bytes.resize(have + piece);
        if (!read_all(fd, bytes.data() + have, piece)) return false;
    }
    return true;
}

}  // namespace oms::landlock
