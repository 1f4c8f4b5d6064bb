// The inside half of the canaries: tiny actions with an exit status that says
// whether the kernel let them happen (0 = it happened).
#include "oms/core/canaries.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

namespace {
// The canary helper runs inside the sandbox, where seccomp refuses the ptrace
// LeakSanitizer needs at exit; in sanitizer builds it must not run there.
bool running_as_canary = false;
}  // namespace

// LeakSanitizer's documented opt-out hook (unused in builds without it).
// The verify launcher (verify_launch.cpp) runs inside the sandbox too.
bool oms_verify_launcher_running();
extern "C" int __lsan_is_turned_off() { return running_as_canary || oms_verify_launcher_running() ? 1 : 0; }

namespace oms::core {

namespace {

int connect_to(const std::string& host, int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) return 2;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 1;
    int result = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    close(fd);
    return result == 0 ? 0 : 1;
}

}  // namespace

int command_canary(const Args& args) {
    running_as_canary = true;
    if (args.size() == 2 && args[0] == "read") {
        std::ifstream in(args[1], std::ios::binary);
        if (!in) return 1;
        std::cout << in.rdbuf();
        return 0;
    }
    if (args.size() == 3 && args[0] == "connect") return connect_to(args[1], std::stoi(args[2]));
    std::fprintf(stderr, "usage: oms __canary read FILE | connect HOST PORT\n");
    return 2;
}

}  // namespace oms::core
