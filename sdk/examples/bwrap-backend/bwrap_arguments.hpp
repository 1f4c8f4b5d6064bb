// Turns the policy into bwrap's arguments: a read-only root, a minimal /dev,
// a fresh /proc, private /tmp, /var/tmp and /run (daemon sockets live there),
// HOME hidden under an empty tmpfs, the allowed trees bound back, denied
// files covered, and every namespace unshared (no network but loopback).
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace bwrap_example {

struct Launch {
    std::vector<std::string> argv;   // bwrap ... -- env ... command
    std::vector<std::string> notes;  // what cannot be granted, for render
};

// `seccomp_fd`: the descriptor number the filter will have in bwrap.
Launch bwrap_launch(const std::string& bwrap, const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                    int seccomp_fd);

}  // namespace bwrap_example
