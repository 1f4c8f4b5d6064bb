#include "variable_names.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace oms::policies {
namespace {

std::string upper(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
    return out;
}

std::vector<std::string> words(const std::string& name) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= name.size()) {
        const size_t end = std::min(name.find('_', start), name.size());
        if (end > start) out.push_back(name.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

bool contains_secret_marker(const std::string& name) {
    static const char* const markers[] = {"SECRET", "PASSWORD", "PASSWD", "APIKEY", "API_KEY", "CREDENTIAL",
                                          "PRIVATE_KEY"};
    return std::any_of(std::begin(markers), std::end(markers),
                       [&](const char* marker) { return name.find(marker) != std::string::npos; });
}

}  // namespace

const std::vector<std::string_view>& spec_allowlist() {
    static const std::vector<std::string_view> names = {
        "PATH",   "HOME", "CARGO_HOME", "RUSTUP_HOME",    "LANG",            "LC_ALL",         "LC_CTYPE",
        "LC_MESSAGES", "TMPDIR", "SHELL", "TERM", "SOLANA_RPC_URL", "SURFNET_RPC_URL", "OMS_OUTPUT_DIR"};
    return names;
}

bool is_variable_name(std::string_view name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
    return std::all_of(name.begin(), name.end(),
                       [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

bool never_passes(std::string_view name) {
    const std::string loud = upper(name);
    if (loud.compare(0, 4, "AWS_") == 0 || contains_secret_marker(loud)) return true;
    const auto parts = words(loud);
    if (std::find(parts.begin(), parts.end(), "TOKEN") != parts.end()) return true;
    return !parts.empty() && parts.back() == "KEY";
}

}  // namespace oms::policies
