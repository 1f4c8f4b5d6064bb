// The run's channel carries a tag byte with descriptors (relay/
// descriptor_passing.hpp): checked over a real seqpacket pair, with what a
// faulty or hostile sender could send. A descriptor received is counted as
// open through fcntl, so a leak shows as a count that does not come back.
#include "descriptor_passing.hpp"

#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

using namespace oms::landlock;

namespace {

struct Channel {
    int sender = -1, receiver = -1;
    Channel() {
        int pair[2];
        REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0);
        sender = pair[0];
        receiver = pair[1];
    }
    ~Channel() {
        close(sender);
        close(receiver);
    }
};

int open_descriptors() {
    int count = 0;
    DIR* folder = opendir("/proc/self/fd");
    while (dirent* entry = readdir(folder)) count += entry->d_name[0] != '.';
    closedir(folder);
    return count - 1;  // the listing's own
}

std::vector<int> pipes(size_t count) {
    std::vector<int> fds;
    for (size_t i = 0; i < count / 2 + 1; ++i) {
        int pair[2];
        REQUIRE(pipe2(pair, O_CLOEXEC) == 0);
        fds.push_back(pair[0]);
        fds.push_back(pair[1]);
    }
    for (size_t i = count; i < fds.size(); ++i) close(fds[i]);
    fds.resize(count);
    return fds;
}

void close_all(const std::vector<int>& fds) {
    for (int fd : fds) close(fd);
}

}  // namespace

TEST_CASE("descriptors and their tag arrive, close-on-exec; a message without any is a tag alone") {
    Channel channel;
    const std::vector<int> sent = pipes(3);
    REQUIRE(send_with_descriptors(channel.sender, 'L', sent.data(), sent.size(), 0) == 1);
    char tag = 0;
    int got[3] = {-1, -1, -1};
    REQUIRE(receive_with_descriptors(channel.receiver, tag, got, 3, MSG_DONTWAIT) == 3);
    CHECK(tag == 'L');
    for (int fd : got) CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    // The same pipe: a byte written at one end is read at the other.
    REQUIRE(write(got[1], "x", 1) == 1);
    char byte = 0;
    CHECK(read(sent[0], &byte, 1) == 1);
    CHECK(byte == 'x');
    close_all(sent);
    close_all({got[0], got[1], got[2]});
    REQUIRE(send_with_descriptors(channel.sender, 'S', nullptr, 0, 0) == 1);
    CHECK(receive_with_descriptors(channel.receiver, tag, got, 1, MSG_DONTWAIT) == 0);
    CHECK(tag == 'S');
}

TEST_CASE("more descriptors than asked for: the extra are closed and the count says more came") {
    Channel channel;
    const int before = open_descriptors();
    for (size_t capacity : {size_t(1), size_t(2), size_t(3)}) {
        const std::vector<int> sent = pipes(capacity + 2);
        REQUIRE(send_with_descriptors(channel.sender, 'L', sent.data(), sent.size(), 0) == 1);
        close_all(sent);
        char tag = 0;
        int got[4] = {-1, -1, -1, -1};
        const int guard = 12345;  // the slot past `capacity` stays untouched
        got[capacity] = guard;
        const ssize_t count = receive_with_descriptors(channel.receiver, tag, got, capacity, MSG_DONTWAIT);
        CHECK(count > static_cast<ssize_t>(capacity));
        CHECK(got[capacity] == guard);
        for (size_t i = 0; i < capacity; ++i) close(got[i]);
    }
    CHECK(open_descriptors() == before);  // nothing received was left open
}

TEST_CASE("descriptors sent to a receiver that wants none, or with no byte, are not left open") {
    Channel channel;
    const int before = open_descriptors();
    const std::vector<int> sent = pipes(2);
    REQUIRE(send_with_descriptors(channel.sender, 'S', sent.data(), sent.size(), 0) == 1);
    char tag = 0;
    // None wanted: the kernel drops them, and the count says the message was cut.
    CHECK(receive_with_descriptors(channel.receiver, tag, nullptr, 0, MSG_DONTWAIT) > 0);
    // A message of descriptors alone, no byte: what only a faulty sender does.
    iovec none{nullptr, 0};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 2)];
    msghdr message{};
    message.msg_iov = &none;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * 2);
    memcpy(CMSG_DATA(header), sent.data(), sizeof(int) * 2);
    REQUIRE(sendmsg(channel.sender, &message, 0) == 0);
    close_all(sent);
    int got[2] = {-1, -1};
    CHECK(receive_with_descriptors(channel.receiver, tag, got, 2, MSG_DONTWAIT) == -1);
    CHECK(open_descriptors() == before);
}

TEST_CASE("more than one message carries is refused before anything is sent") {
    Channel channel;
    std::vector<int> many(kMaxPassedDescriptors + 1, 0);
    errno = 0;
    CHECK(send_with_descriptors(channel.sender, 'L', many.data(), many.size(), 0) == -1);
    CHECK(errno == E2BIG);
    char tag = 0;
    int got[1];
    CHECK(receive_with_descriptors(channel.receiver, tag, got, 1, MSG_DONTWAIT) == -1);  // nothing came
}
