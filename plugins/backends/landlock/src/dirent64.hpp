// The record getdents64(2) fills: the folder walks read raw entries (no stat
// per file), which is most of what keeps the keypair search fast.
#pragma once
#include <cstdint>

namespace oms::landlock {

struct LinuxDirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

}  // namespace oms::landlock
