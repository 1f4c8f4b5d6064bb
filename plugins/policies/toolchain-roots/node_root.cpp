#include "node_root.hpp"

#include "paths.hpp"

#include <oms/path.hpp>

namespace oms::policies {

std::optional<std::string> find_node(std::string_view path_variable) {
    for (std::string_view entry : split_path_list(path_variable)) {
        if (!sdk::path::is_absolute(entry)) continue;
        const std::string candidate = join(entry, "node");
        if (is_executable_file(candidate)) return candidate;
    }
    return std::nullopt;
}

std::string node_install_root(std::string_view resolved_node) {
    const std::string folder = sdk::path::parent_of(resolved_node);
    return base_name(folder) == "bin" ? sdk::path::parent_of(folder) : folder;
}

}  // namespace oms::policies
