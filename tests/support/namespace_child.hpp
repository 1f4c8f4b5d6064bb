// Runs a part of a test in a child with namespaces of its own (a network or
// mount namespace), as root or as an ordinary user (a user namespace first,
// mapping the caller's ids), and brings back what it saw as text: the child
// reports facts, the test asserts on them in the parent.
#pragma once
#include <functional>
#include <string>

namespace oms::test {

// Enters new namespaces of `flags` (CLONE_NEWNET, CLONE_NEWNS...), with a
// user namespace first when not root; false when the kernel refuses.
bool enter_namespaces(int flags);

// `observe`'s text, run in a forked child (its namespaces die with it).
std::string facts_from_child(const std::function<std::string()>& observe);

}  // namespace oms::test
