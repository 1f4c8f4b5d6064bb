#include "oms/core/warn_once.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace oms::core {

bool warn_once(const std::string& state_dir, const std::string& backend_id, const std::vector<std::string>& lines) {
    if (lines.empty()) return false;
    fs::path marker = fs::path(state_dir) / ("warned-" + backend_id);
    std::error_code error;
    if (fs::exists(marker, error)) return false;
    for (auto& line : lines) std::fprintf(stderr, "oms: warning: %s\n", line.c_str());
    fs::create_directories(state_dir, error);
    std::ofstream(marker) << "shown\n";
    return true;
}

}  // namespace oms::core
