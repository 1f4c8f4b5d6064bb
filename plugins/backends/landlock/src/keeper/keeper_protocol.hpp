// The scan keeper's wire format, over a stream socket in the user's run
// folder base (sdk/include/oms/run_folder.hpp), which no command sees: each
// message is a u32 byte count and that many bytes, integers in the host's
// order (both ends are on one machine). One request and one answer per
// connection.
//
// Request:  u32 kKeeperMagic, u32 kKeeperVersion, u32 kind (KeeperAsk),
//           u64 mount namespace inode of the asker, 16 bytes keeper id and
//           u64 moment of the asker's cache (zeros: none), u64 device and
//           u64 inode of the root, u32 length and bytes of the root's path,
//           u64 ticket (0: none), u32 count, then count pairs of u64 device
//           and u64 inode: the folders asked about. A question may name its
//           folders by the ticket the keeper gave for them instead (count
//           0): a 5,000-folder cache is then a 100-byte question.
// Answer:   u32 kKeeperMagic, u32 kKeeperVersion, 16 bytes keeper id, u64
//           moment of this answer, u64 ticket (the one given, or the one a
//           `remember` made; 0: the keeper does not know the ticket asked
//           with, and vouches for nothing), u32 count, ceil(count / 8)
//           bytes: bit i (byte i / 8, bit i % 8) set when folder i (of the
//           request's, or of the ticket's list) is unchanged since the
//           asker's moment.
#pragma once
#include <oms/scan_keeper.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace oms::landlock {

constexpr uint32_t kKeeperMagic = 0x4b534d4f;  // "OMSK"
constexpr uint32_t kKeeperVersion = 2;
constexpr uint32_t kKeeperMaxMessage = 64u << 20;
constexpr char kKeeperSocketName[] = "scan-keeper.sock";
constexpr char kKeeperLockName[] = "scan-keeper.lock";
constexpr char kKeeperProgram[] = "oms-scan-keeper";

// The question and answer types are the SDK's (oms/scan_keeper.hpp): the
// cached walk asks through its ScanKeeper interface.
using sdk::KeeperAnswer;
using sdk::KeeperAsk;
using sdk::KeeperFolder;
using sdk::KeeperFolderHash;
using sdk::KeeperId;
using sdk::KeeperMark;
using sdk::KeeperRequest;

std::string encode(const KeeperRequest& request);
std::string encode(const KeeperAnswer& answer);
bool decode(const std::string& bytes, KeeperRequest& out);
bool decode(const std::string& bytes, KeeperAnswer& out);

// One message each way, framed; false on any failure (the peer is then
// dropped, and a launcher walks as if there were no keeper).
bool send_message(int fd, const std::string& bytes);
bool receive_message(int fd, std::string& bytes);

}  // namespace oms::landlock
