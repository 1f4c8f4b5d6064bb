// System calls of another architecture made from this process: the 32-bit
// x86 entry (int 0x80) and an x32 number, both for getpid.
#pragma once

namespace oms::test {

#if defined(__x86_64__)
long i386_getpid();
long x32_getpid();
#endif

}  // namespace oms::test
