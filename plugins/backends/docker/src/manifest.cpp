#include "manifest.hpp"

#include "container_view.hpp"

#include <oms/path.hpp>
#include <oms/sdk.hpp>
#include <oms/text_file.hpp>
#include <oms/toml_text.hpp>
#include <toml++/toml.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdlib>

namespace oms::docker {

namespace {

bool is_hex64(const std::string& s) {
    if (s.size() != 64) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c)) && (c < 'a' || c > 'f')) return false;
    return true;
}

bool is_number(const std::string& s) {
    if (s.empty() || s.size() > 10) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

[[noreturn]] void fail_at(const std::string& path, int64_t line, const std::string& what) {
    throw sdk::Error(OMS_ERR_INVALID, path + ":" + std::to_string(line) + ": " + what);
}

int64_t line_of(const toml::node& node) { return static_cast<int64_t>(node.source().begin.line); }

// The key written on `line` of `text` ("" when the line has no `key =`): a
// TOML syntax error has no parsed key, but the reader should still see which.
std::string key_on_line(const std::string& text, int64_t line) {
    size_t start = 0;
    for (int64_t n = 1; n < line && start != std::string::npos; ++n) {
        start = text.find('\n', start);
        if (start != std::string::npos) ++start;
    }
    if (start == std::string::npos) return "";
    std::string row = text.substr(start, text.find('\n', start) - start);
    size_t eq = row.find('=');
    if (eq == std::string::npos) return "";
    size_t b = row.find_first_not_of(" \t");
    size_t e = row.find_last_not_of(" \t", eq - 1);
    return b == std::string::npos || e == std::string::npos || b > e ? "" : row.substr(b, e - b + 1);
}

toml::table parse_toml(const std::string& text, const std::string& path) {
    if (const auto flaw = sdk::toml_text::unsafe_character(text))
        fail_at(path, static_cast<int64_t>(flaw->line), "malformed TOML: " + flaw->what);
    try {
        return toml::parse(text, path);
    } catch (const toml::parse_error& e) {
        const int64_t line = static_cast<int64_t>(e.source().begin.line);
        const std::string key = key_on_line(text, line);
        fail_at(path, line, "malformed TOML" + (key.empty() ? std::string() : " at key '" + key + "'") + ": " +
                                std::string(e.description()));
    }
}

// The string value of `key`, or nothing when absent; anything else is an error at its line.
std::optional<std::string> string_value(const toml::table& root, const std::string& key, const std::string& path) {
    const toml::node* node = root.get(key);
    if (!node) return std::nullopt;
    if (const auto* text = node->as_string()) return text->get();
    fail_at(path, line_of(*node), "key '" + key + "' must be a \"quoted string\"");
}

void refuse_unknown_keys(const toml::table& root, const std::string& path) {
    for (const auto& [key, node] : root)
        if (key != "image" && key != "user" && key != "archive")
            fail_at(path, line_of(node),
                    "unknown key '" + std::string(key.str()) + "' (known: image, user, archive)");
}

}  // namespace

bool is_pinned_image(const std::string& reference) {
    const std::string prefix = "sha256:";
    size_t at = reference.find('@');
    std::string digest = at == std::string::npos ? reference : reference.substr(at + 1);
    if (at != std::string::npos && at == 0) return false;
    return digest.compare(0, prefix.size(), prefix) == 0 && is_hex64(digest.substr(prefix.size()));
}

std::string user_problem(const std::string& user) {
    size_t colon = user.find(':');
    std::string uid = user.substr(0, colon);
    std::string gid = colon == std::string::npos ? "" : user.substr(colon + 1);
    if (!is_number(uid) || (colon != std::string::npos && !is_number(gid)))
        return "'" + user + "' must be a numeric uid:gid (names are resolved inside the image and may be root)";
    if (std::stoul(uid) == 0) return "'" + user + "' is root (uid 0); containers run as a non-root user";
    if (!gid.empty() && std::stoul(gid) == 0) return "'" + user + "' has group 0 (root); use a non-root group";
    return "";
}

Manifest parse_manifest(const std::string& text, const std::string& path) {
    const toml::table root = parse_toml(text, path);
    refuse_unknown_keys(root, path);
    Manifest m;
    m.path = path;
    const std::optional<std::string> image = string_value(root, "image", path);
    if (!image) throw sdk::Error(OMS_ERR_INVALID, path + ": missing key 'image' (the pinned image)");
    if (!is_pinned_image(*image))
        fail_at(path, line_of(*root.get("image")),
                "image '" + *image +
                    "' is not pinned: use an image ID (sha256:<64 hex>) or a digest (name@sha256:<64 hex>); "
                    "a tag can change under you");
    m.image = *image;
    m.user = string_value(root, "user", path);
    if (m.user && !user_problem(*m.user).empty())
        fail_at(path, line_of(*root.get("user")), "user: " + user_problem(*m.user));
    m.archive = string_value(root, "archive", path);
    return m;
}

namespace {

// The path the kernel has for an open descriptor: what was really opened,
// whatever links the name went through.
std::string opened_path(int fd) {
    char buffer[PATH_MAX];
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    ssize_t n = ::readlink(link.c_str(), buffer, sizeof buffer - 1);
    return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
}

void refuse_command_written(const std::string& path, const std::string& opened,
                            const std::vector<std::string>& command_written) {
    for (const std::string& folder : command_written) {
        if (folder.empty() || (!sdk::path::is_inside(path, folder) && !sdk::path::is_inside(opened, folder))) continue;
        throw sdk::Error(OMS_ERR_FAILED,
                         "docker: refusing the runtime manifest " + path + (opened == path ? "" : " (" + opened + ")") +
                             ": it lies in " + folder + ", which commands can write, so a command could choose the "
                             "image and user of later runs. Nothing ran. Keep it outside the worktree and every "
                             "read-write folder (config key [plugin.docker] manifest).");
    }
}

}  // namespace

Manifest load_manifest(const std::string& path, const std::vector<std::string>& command_written) {
    const int fd = sdk::open_regular_file(path);
    if (fd < 0)
        throw sdk::Error(OMS_ERR_INVALID, "cannot read the runtime manifest '" + path +
                                              "': not a readable regular file (config key [plugin.docker] manifest)");
    const std::string opened = opened_path(fd);
    try {
        refuse_command_written(path, opened.empty() ? path : opened, command_written);
    } catch (...) {
        ::close(fd);
        throw;
    }
    const auto text = sdk::read_text_fd(fd);
    ::close(fd);
    if (!text)
        throw sdk::Error(OMS_ERR_INVALID, "cannot read the runtime manifest (or it is over 1 MiB) '" + path +
                                              "' (config key [plugin.docker] manifest)");
    return parse_manifest(*text, path);
}

}  // namespace oms::docker
