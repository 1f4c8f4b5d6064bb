// oms/connect_watch.hpp: where a sandboxed command tried to connect, for
// backends that run the command under a process of their own (landlock's
// init, the docker runner): the SDK's library oms::connect-watch. In a
// network namespace whose only interface is a private `lo`, the kernel
// answers a connect (or a datagram) to any other address with ENETUNREACH at
// once, and nothing inside can see that it happened. The command installs,
// after no_new_privs and before its exec, a seccomp filter whose connect
// (and sendto or sendmsg with MSG_FASTOPEN, a TCP Fast Open connect)
// returns SECCOMP_RET_USER_NOTIF; the
// filter's listener goes to the watching process (send_listener /
// receive_listener over a unix socket), which answers each call: it reads
// the destination from the caller's memory and lets the call go on
// unchanged (SECCOMP_USER_NOTIF_FLAG_CONTINUE), so the kernel decides, as
// without the watch. Report only: the watch never allows what the kernel
// would refuse, and a destination it reads may have been changed by another
// thread of the caller since (it is what the command said, not a fact).
//
// libc only, no allocation, no static state: it runs in a copy of a
// threaded process and in a static binary. Linux 5.5 or later.
#pragma once
#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

namespace oms::connect_watch {

// Installs `filter` on the calling thread with a listener; returns the
// listener, or -1 (errno set) when the kernel refuses (no user notification,
// or no no_new_privs). The descriptor is not close-on-exec: close it.
int install(const sock_fprog& filter);

// Passes `listener` over the unix socket `channel` (SCM_RIGHTS); false when
// it could not be sent.
bool send_listener(int channel, int listener);

// The command's whole side: install `filter` with a listener, send it on
// `channel` and close the command's copy of the listener. False when the
// kernel refused the filter or the listener could not be sent: the command
// then runs unwatched (report only). `channel` stays open.
bool hand_over(const sock_fprog& filter, int channel);
// Takes a listener from `channel` (close-on-exec), waiting for it; -1 when
// the channel ended without one. Where the kernel has it (Linux 6.6), the
// caller's wake-up hands the CPU straight to the watcher and back.
int receive_listener(int channel);

// One call the filter stopped.
struct Call {
    int family;           // AF_INET or AF_INET6; 0: no such destination (unix, unreadable, too short)
    uint8_t address[16];  // 4 bytes for AF_INET
    uint16_t port;        // host order
    bool off_loopback;    // not 127/8, ::1, the unspecified address, or IPv4 ones of them mapped in IPv6
};

enum class Answer {
    call,      // `call` holds the destination of a call, which has gone on
    nothing,   // nothing to report (the call was interrupted before its answer)
    finished,  // no process is left under the filter, or the listener failed: close it
};

// Answers one notification on `listener` (poll it for POLLIN first: this
// waits for one otherwise): a connect, sendto or sendmsg, whose
// destination is read while the caller waits.
Answer answer(int listener, Call& call);

// Whether the sockaddr in `bytes` (`size` of them, as the caller passed it)
// names an IPv4 or IPv6 address off the loopback (see Call::off_loopback).
bool off_loopback(const uint8_t* bytes, size_t size);

}  // namespace oms::connect_watch
