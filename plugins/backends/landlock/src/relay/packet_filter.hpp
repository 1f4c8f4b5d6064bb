// Classic BPF socket filters written as a list of checks, assembled at
// compile time: each check either lets the packet go on to the next one or
// drops it, so every jump goes to the one drop at the end and no offset is
// counted by hand. Enough for "keep these packets' first N bytes".
#pragma once
#include <linux/filter.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace oms::landlock::packet_filter {

enum class Op : uint8_t {
    load_byte,              // A = packet[k]
    load_half,              // A = packet[k..k+1], big-endian
    load_ip_header_length,  // X = (packet[k] & 0x0f) * 4
    load_byte_after_ip,     // A = packet[X + k]
    drop_unless_equal,      // A == k, or drop
    drop_if_any_bit,        // (A & k) == 0, or drop
    drop_unless_any_bit,    // (A & k) != 0, or drop
    keep,                   // keep the packet's first k bytes (ends the program)
};

struct Check {
    Op op;
    uint32_t k;
};

// The program: one instruction per check, then `return 0` (drop).
template <size_t N>
constexpr std::array<sock_filter, N + 1> assemble(const Check (&checks)[N]) {
    static_assert(N < 255, "a jump reaches at most 255 instructions ahead");
    std::array<sock_filter, N + 1> program{};
    for (size_t i = 0; i < N; ++i) {
        const uint8_t to_drop = static_cast<uint8_t>(N - (i + 1));
        const uint32_t k = checks[i].k;
        switch (checks[i].op) {
        case Op::load_byte: program[i] = sock_filter{BPF_LD | BPF_B | BPF_ABS, 0, 0, k}; break;
        case Op::load_half: program[i] = sock_filter{BPF_LD | BPF_H | BPF_ABS, 0, 0, k}; break;
        case Op::load_ip_header_length: program[i] = sock_filter{BPF_LDX | BPF_B | BPF_MSH, 0, 0, k}; break;
        case Op::load_byte_after_ip: program[i] = sock_filter{BPF_LD | BPF_B | BPF_IND, 0, 0, k}; break;
        case Op::drop_unless_equal: program[i] = sock_filter{BPF_JMP | BPF_JEQ | BPF_K, 0, to_drop, k}; break;
        case Op::drop_if_any_bit: program[i] = sock_filter{BPF_JMP | BPF_JSET | BPF_K, to_drop, 0, k}; break;
        case Op::drop_unless_any_bit: program[i] = sock_filter{BPF_JMP | BPF_JSET | BPF_K, 0, to_drop, k}; break;
        case Op::keep: program[i] = sock_filter{BPF_RET | BPF_K, 0, 0, k}; break;
        }
    }
    program[N] = sock_filter{BPF_RET | BPF_K, 0, 0, 0};
    return program;
}

}  // namespace oms::landlock::packet_filter
