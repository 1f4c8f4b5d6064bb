// oms/refusal_log.hpp: how a backend tells oms what it saw refused during a
// run (a name its resolver answered "no such host", a loopback connection
// nothing took), so that the run's one-line summary and `oms explain --last`
// name it next to the egress proxy's refusals. oms gives the file
// (oms_run_context.refusal_log, ABI 1.3; sdk::Context::refusal_log()); the
// backend opens it before it starts the command and appends one line per
// refusal:
//
//     refused<TAB>SOURCE<TAB>HOST<TAB>PORT<TAB>RULE<LF>
//
// SOURCE names what saw it ("resolver", "loopback", "relay"), HOST is a name
// or an address, PORT 0 for a name lookup, RULE what refused it in the
// user's words. Each line is one write(2) of at most kMaxLine bytes on an
// O_APPEND descriptor, so lines of several writers (a sandbox's init, oms's
// relay thread) never interleave. oms reads the first kMaxFileBytes and
// skips a line of another shape.
//
// Header-only, libc only, no allocation: callable from a copy of a threaded
// process (landlock's init) and from a static binary.
#pragma once
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

namespace oms::refusal_log {

inline constexpr size_t kMaxLine = 512;
inline constexpr size_t kMaxFileBytes = 1 << 20;
inline constexpr size_t kMaxField = 200;  // host and rule are cut there

// Opens `path` for appending (never following a link); -1 when path is NULL
// or empty, or the file cannot be opened. CLOEXEC: a command never inherits it.
inline int open_for_append(const char* path) {
    if (!path || !*path) return -1;
    return ::open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
}

namespace detail {

// Appends `text` (size bytes, or up to NUL when size is (size_t)-1), a byte
// outside printable ASCII as '?', at most kMaxField bytes.
inline size_t put(char* line, size_t at, const char* text, size_t size) {
    for (size_t i = 0; text && i < size && i < kMaxField && at < kMaxLine - 1; ++i) {
        if (size == static_cast<size_t>(-1) && text[i] == '\0') break;
        const unsigned char c = static_cast<unsigned char>(text[i]);
        line[at++] = (c >= 0x20 && c <= 0x7e) ? static_cast<char>(c) : '?';
    }
    return at;
}

inline size_t put_char(char* line, size_t at, char c) {
    if (at < kMaxLine - 1) line[at++] = c;
    return at;
}

inline size_t put_port(char* line, size_t at, unsigned port) {
    char digits[6];
    size_t n = 0;
    port &= 0xffff;
    do {
        digits[n++] = static_cast<char>('0' + port % 10);
        port /= 10;
    } while (port && n < sizeof digits);
    while (n) at = put_char(line, at, digits[--n]);
    return at;
}

}  // namespace detail

// The source of a line that is a notice, not a refusal: a file the backend
// hid from every command of the run (host: its path; port 0), so that oms
// can name it when the command fails and `oms explain --last` lists it.
inline constexpr const char kHiddenSource[] = "hidden";

// One refusal; host_size bytes of host ((size_t)-1: up to its NUL). False
// when fd < 0 or the write failed (the run goes on: a report is best effort).
inline bool append(int fd, const char* source, const char* host, size_t host_size, unsigned port, const char* rule) {
    if (fd < 0) return false;
    char line[kMaxLine];
    size_t at = detail::put(line, 0, "refused", static_cast<size_t>(-1));
    at = detail::put_char(line, at, '\t');
    at = detail::put(line, at, source, static_cast<size_t>(-1));
    at = detail::put_char(line, at, '\t');
    at = detail::put(line, at, host, host_size);
    at = detail::put_char(line, at, '\t');
    at = detail::put_port(line, at, port);
    at = detail::put_char(line, at, '\t');
    at = detail::put(line, at, rule, static_cast<size_t>(-1));
    line[at++] = '\n';
    return ::write(fd, line, at) == static_cast<ssize_t>(at);
}

}  // namespace oms::refusal_log
