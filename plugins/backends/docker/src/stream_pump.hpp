// Moves bytes between a command's descriptors and the hijacked connection of
// `exec start`: stdin to the daemon, the daemon's output back. Without a
// terminal the daemon multiplexes stdout and stderr in frames of an 8-byte
// header (stream type, 3 zero bytes, big-endian length) and the payload;
// with a terminal it sends the raw byte stream.
#pragma once
#include <cstddef>
#include <string>

namespace oms::docker {

// Splits a multiplexed stream into stdout and stderr as bytes arrive.
class FrameDemuxer {
public:
    FrameDemuxer(int out_fd, int err_fd) : out_fd_(out_fd), err_fd_(err_fd) {}
    void feed(const char* data, size_t size);
    bool idle() const { return pending_.empty(); }  // no partial frame left

private:
    int out_fd_, err_fd_;
    std::string pending_;
};

// Runs until the daemon closes the stream (the command's output ended).
// Stdin is forwarded until it reaches EOF, then the write side is shut down
// so the command sees EOF too. `early` holds bytes read with the headers.
void pump_exec_stream(int socket_fd, const std::string& early, int in_fd, int out_fd, int err_fd, bool tty);

// Writes all of `data`; a closed reader (EPIPE) drops the rest silently.
void write_fully(int fd, const char* data, size_t size);

}  // namespace oms::docker
