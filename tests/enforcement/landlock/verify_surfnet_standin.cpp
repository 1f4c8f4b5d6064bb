// A stand-in for a Surfnet (Surfpool cannot be installed here), started by
// `oms verify` through the same surfnet_cmd mechanism as the real one:
//   serve PORT MARK [stubborn]
//                     listen on 127.0.0.1:PORT, answer every request with a
//                     JSON-RPC-ish reply carrying MARK; runs until killed.
//                     stubborn: ignores SIGTERM and leaves a setsid'd child
//                     behind, as a daemon that does not want to stop would
//   ask PORT          send one request, print the reply; 0 when one came,
//                     1 when the connect (or the reply) failed
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

int serve(int port, const std::string& mark, bool stubborn) {
    signal(SIGPIPE, SIG_IGN);
    if (stubborn) {
        signal(SIGTERM, SIG_IGN);
        if (fork() == 0) {
            setsid();
            for (;;) pause();
        }
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address = loopback(port);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, 16) != 0) {
        std::fprintf(stderr, "standin: cannot listen on 127.0.0.1:%d: %s\n", port, std::strerror(errno));
        return 3;
    }
    const std::string reply = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"surfnet\":\"" + mark + "\"}}\n";
    for (;;) {
        int client = accept(fd, nullptr, nullptr);
        if (client < 0) continue;
        char buffer[1024];
        if (read(client, buffer, sizeof buffer) > 0) (void)!write(client, reply.data(), reply.size());
        close(client);
    }
}

int ask(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = loopback(port);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        std::printf("connect-failed %s\n", std::strerror(errno));
        return 1;
    }
    const char request[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"getVersion\"}\n";
    (void)!write(fd, request, sizeof request - 1);
    char buffer[1024];
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    if (n <= 0) {
        std::printf("no-reply\n");
        return 1;
    }
    buffer[n] = 0;
    std::printf("%s", buffer);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "serve" && (argc == 4 || argc == 5))
        return serve(atoi(argv[2]), argv[3], argc == 5 && std::string(argv[4]) == "stubborn");
    if (mode == "ask" && argc == 3) return ask(atoi(argv[2]));
    std::fprintf(stderr, "usage: verify_surfnet_standin serve PORT MARK [stubborn] | ask PORT\n");
    return 2;
}
