#include "filter_context.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>

namespace oms::seccomp_gen {

namespace {

[[noreturn]] void fail(const std::string& what, int rc) {
    throw std::runtime_error(what + ": " + std::to_string(-rc));
}

void check(int rc, const std::string& what) {
    if (rc < 0) fail(what, rc);
}

}  // namespace

FilterContext::FilterContext() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {
    if (!ctx_) throw std::runtime_error("seccomp_init failed");
    // The context holds only the native architecture: every other one (and
    // x32 on x86_64) takes the bad-architecture action.
    check(seccomp_attr_set(ctx_, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS), "set the bad-arch action");
}

FilterContext::~FilterContext() { seccomp_release(ctx_); }

int FilterContext::number_of(const char* name) const {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) throw std::runtime_error(std::string("libseccomp does not know ") + name);
    return nr;
}

void FilterContext::add(uint32_t action, const char* name, std::initializer_list<scmp_arg_cmp> comparisons,
                        const char* what) {
    std::vector<scmp_arg_cmp> list(comparisons);
    check(seccomp_rule_add_array(ctx_, action, number_of(name), static_cast<unsigned>(list.size()), list.data()),
          std::string(what) + " " + name);
}

void FilterContext::refuse(const char* name, int error) { add(SCMP_ACT_ERRNO(error), name, {}, "refuse"); }

void FilterContext::refuse_when(const char* name, int error, std::initializer_list<scmp_arg_cmp> comparisons) {
    add(SCMP_ACT_ERRNO(error), name, comparisons, "refuse, with arguments,");
}

void FilterContext::notify_when(const char* name, std::initializer_list<scmp_arg_cmp> comparisons) {
    add(SCMP_ACT_NOTIFY, name, comparisons, "notify");
}

void FilterContext::refuse_when_any_bit(const char* name, int error, unsigned index, uint32_t bits) {
    for (uint32_t bit = 1; bit != 0; bit <<= 1) {
        if (bits & bit) refuse_when(name, error, {bit_set(index, bit)});
    }
}

std::vector<sock_filter> FilterContext::program() const {
    int fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
    if (fd < 0) throw std::runtime_error("memfd_create failed");
    int rc = seccomp_export_bpf(ctx_, fd);
    off_t size = lseek(fd, 0, SEEK_END);
    std::vector<sock_filter> code(size > 0 ? static_cast<size_t>(size) / sizeof(sock_filter) : 0);
    ssize_t got = pread(fd, code.data(), code.size() * sizeof(sock_filter), 0);
    close(fd);
    check(rc, "seccomp_export_bpf");
    if (code.empty() || got != static_cast<ssize_t>(code.size() * sizeof(sock_filter)))
        throw std::runtime_error("cannot read the exported program back");
    return code;
}

scmp_arg_cmp bit_set(unsigned index, uint32_t bit) { return masked_is(index, bit, bit); }

// A mask with no high bits makes libseccomp's high-word test always pass,
// as the kernel ignores the high word of an int argument.
scmp_arg_cmp masked_is(unsigned index, uint32_t mask, uint32_t value) {
    return scmp_arg_cmp{index, SCMP_CMP_MASKED_EQ, mask, value};
}

scmp_arg_cmp low_word_is(unsigned index, uint32_t value) { return masked_is(index, 0xffffffffu, value); }

scmp_arg_cmp equals(unsigned index, uint64_t value) { return scmp_arg_cmp{index, SCMP_CMP_EQ, value, 0}; }

scmp_arg_cmp above(unsigned index, uint64_t value) { return scmp_arg_cmp{index, SCMP_CMP_GT, value, 0}; }

}  // namespace oms::seccomp_gen
