// The Landlock kernel interface, defined here because the installed kernel
// headers predate the ABI versions this backend uses (TCP ports in ABI 4,
// device ioctls in ABI 5, scoping in ABI 6). Values are the kernel's UAPI.
#pragma once
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace oms::landlock::uapi {

constexpr long kSysCreateRuleset = 444;
constexpr long kSysAddRule = 445;
constexpr long kSysRestrictSelf = 446;

constexpr uint32_t kCreateRulesetVersion = 1u << 0;

constexpr uint32_t kRulePathBeneath = 1;
constexpr uint32_t kRuleNetPort = 2;

// Filesystem rights (the ABI that introduced each is in the comment).
constexpr uint64_t kFsExecute = 1ull << 0;      // 1
constexpr uint64_t kFsWriteFile = 1ull << 1;    // 1
constexpr uint64_t kFsReadFile = 1ull << 2;     // 1
constexpr uint64_t kFsReadDir = 1ull << 3;      // 1
constexpr uint64_t kFsRemoveDir = 1ull << 4;    // 1
constexpr uint64_t kFsRemoveFile = 1ull << 5;   // 1
constexpr uint64_t kFsMakeChar = 1ull << 6;     // 1
constexpr uint64_t kFsMakeDir = 1ull << 7;      // 1
constexpr uint64_t kFsMakeReg = 1ull << 8;      // 1
constexpr uint64_t kFsMakeSock = 1ull << 9;     // 1
constexpr uint64_t kFsMakeFifo = 1ull << 10;    // 1
constexpr uint64_t kFsMakeBlock = 1ull << 11;   // 1
constexpr uint64_t kFsMakeSym = 1ull << 12;     // 1
constexpr uint64_t kFsRefer = 1ull << 13;       // 2
constexpr uint64_t kFsTruncate = 1ull << 14;    // 3
constexpr uint64_t kFsIoctlDev = 1ull << 15;    // 5

// Network rights (ABI 4).
constexpr uint64_t kNetBindTcp = 1ull << 0;
constexpr uint64_t kNetConnectTcp = 1ull << 1;

// Scopes (ABI 6).
constexpr uint64_t kScopeAbstractUnixSocket = 1ull << 0;
constexpr uint64_t kScopeSignal = 1ull << 1;

struct RulesetAttr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;  // ABI 4
    uint64_t scoped;              // ABI 6
};

struct __attribute__((packed)) PathBeneathAttr {
    uint64_t allowed_access;
    int32_t parent_fd;
};

struct NetPortAttr {
    uint64_t allowed_access;
    uint64_t port;
};

inline long create_ruleset(const RulesetAttr* attr, size_t size, uint32_t flags) {
    return syscall(kSysCreateRuleset, attr, size, flags);
}
inline long add_rule(int ruleset_fd, uint32_t type, const void* attr) {
    return syscall(kSysAddRule, ruleset_fd, type, attr, 0);
}
inline long restrict_self(int ruleset_fd) { return syscall(kSysRestrictSelf, ruleset_fd, 0); }

// Rights that only make sense on a file (a rule on a file may carry no others).
constexpr uint64_t kFileRights = kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev;
constexpr uint64_t kReadRights = kFsExecute | kFsReadFile | kFsReadDir;

}  // namespace oms::landlock::uapi
