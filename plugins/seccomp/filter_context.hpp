// A libseccomp filter under construction, with the treatment every oms
// filter gives foreign architectures: a system call of any architecture but
// the build's own (32-bit int 0x80 from a 64-bit process, x32 numbers on
// x86_64, which share its audit arch) kills the process. Rules are added by
// syscall name, so a call this architecture lacks is simply left out.
#pragma once
#include <seccomp.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <linux/filter.h>

namespace oms::seccomp_gen {

class FilterContext {
public:
    FilterContext();  // everything allowed but foreign architectures
    ~FilterContext();
    FilterContext(const FilterContext&) = delete;
    FilterContext& operator=(const FilterContext&) = delete;

    // The call `name` answers `error` whatever its arguments.
    void refuse(const char* name, int error);
    // The call answers `error` when all of `comparisons` hold.
    void refuse_when(const char* name, int error, std::initializer_list<scmp_arg_cmp> comparisons);
    // The call answers `error` when arg `index` has any of `bits` set (one
    // rule per bit: a rule's comparisons all have to hold).
    void refuse_when_any_bit(const char* name, int error, unsigned index, uint32_t bits);
    // The call waits for the filter's listener (SECCOMP_RET_USER_NOTIF) when
    // all of `comparisons` hold (none: always).
    void notify_when(const char* name, std::initializer_list<scmp_arg_cmp> comparisons);

    // The classic BPF program the kernel runs.
    std::vector<sock_filter> program() const;

private:
    int number_of(const char* name) const;
    void add(uint32_t action, const char* name, std::initializer_list<scmp_arg_cmp> comparisons, const char* what);
    scmp_filter_ctx ctx_;
};

// arg `index` has the single bit `bit` set (only its low word counts).
scmp_arg_cmp bit_set(unsigned index, uint32_t bit);
// The bits `mask` of arg `index` equal `value` (only its low word counts).
scmp_arg_cmp masked_is(unsigned index, uint32_t mask, uint32_t value);
// The low word of arg `index` (an int or unsigned int argument) is `value`.
scmp_arg_cmp low_word_is(unsigned index, uint32_t value);
// arg `index` is `value` as a whole 64-bit register.
scmp_arg_cmp equals(unsigned index, uint64_t value);
// arg `index` is above `value` as a whole 64-bit register.
scmp_arg_cmp above(unsigned index, uint64_t value);

}  // namespace oms::seccomp_gen
