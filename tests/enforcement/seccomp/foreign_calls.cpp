#include "foreign_calls.hpp"

#include <sys/syscall.h>
#include <unistd.h>

namespace oms::test {

#if defined(__x86_64__)
long i386_getpid() {
    long result = 20;  // getpid in the 32-bit table
    asm volatile("int $0x80" : "+a"(result) : : "memory");
    return result;
}

long x32_getpid() { return syscall(0x40000000L | SYS_getpid); }
#endif

}  // namespace oms::test
