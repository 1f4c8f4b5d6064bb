// Whether a file the keypair suffix rules hide is a Solana keypair (a JSON
// array of 64 numbers from 0 to 255, what `solana-keygen new` writes), so a
// file that only shares the name (a `locales/id.json`, a test fixture) is
// named once on stderr with the key that exempts it. It stays hidden either
// way: the answer only decides whether oms says so.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace oms::landlock {

enum class KeypairShape {
    keypair,      // a JSON array of 64 bytes
    not_keypair,  // read, and something else
    unknown,      // not read: gone, not a regular file, another file, too large, unreadable
};

// At most kMaxKeypairText bytes of `text`.
KeypairShape keypair_shape_of(std::string_view text);

// Opens `path` with O_NOFOLLOW | O_NONBLOCK (a link, FIFO or device a
// command put there is never followed nor waited on), checks that it is the
// regular file with this device and inode (the one the mask covers), and
// reads at most kMaxKeypairText bytes of it.
KeypairShape keypair_shape(const std::string& path, uint64_t device, uint64_t inode);

// A keypair is at most 64 * 4 + 2 bytes unindented; pretty-printed with one
// number a line, under 1 KiB. Anything longer is left unknown.
constexpr size_t kMaxKeypairText = 4096;

}  // namespace oms::landlock
