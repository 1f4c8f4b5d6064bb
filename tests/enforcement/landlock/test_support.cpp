#include "test_support.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace oms::test {

namespace {
void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}
}  // namespace

std::string expand(const World& world, std::string script) {
    replace_all(script, "{home}", world.home);
    replace_all(script, "{work}", world.work);
    replace_all(script, "{other}", world.other_repo);
    replace_all(script, "{outside}", world.outside);
    replace_all(script, "{pinned}", world.pinned);
    replace_all(script, "{probe}", probe_tool());
    return script;
}

std::vector<std::string> lines_starting(const std::string& out, const std::string& prefix) {
    std::vector<std::string> found;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (line.compare(0, prefix.size(), prefix) == 0) found.push_back(line);
    return found;
}

void require_landlock() {
    // run-on-rung.sh runs the suite with Landlock taken away on purpose, to
    // measure what a lower rung holds of it.
    const char* rung = std::getenv("OMS_TEST_ON_RUNG");
    if (rung && std::string(rung) == "2") return;
    long abi = syscall(444, nullptr, 0, 1u);
    INFO("Landlock is not available on this kernel (landlock_create_ruleset version query failed): the "
         "landlock backend cannot be tested here");
    REQUIRE(abi >= 1);
}

}  // namespace oms::test
