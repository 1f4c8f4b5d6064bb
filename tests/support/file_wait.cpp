#include "file_wait.hpp"

#include <filesystem>
#include <thread>

namespace oms::test {

bool file_appears(const std::string& path, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!std::filesystem::exists(path)) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

std::string shell_wait_for(const std::string& path) {
    return "i=0; until [ -e '" + path + "' ] || [ $i -ge 600 ]; do sleep 0.05; i=$((i+1)); done; ";
}

}  // namespace oms::test
