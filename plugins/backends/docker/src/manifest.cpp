#include "manifest.hpp"

#include <oms/sdk.hpp>

#include <cctype>
#include <oms/text_file.hpp>
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

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

[[noreturn]] void fail_at(const std::string& path, int line, const std::string& what) {
    throw sdk::Error(OMS_ERR_INVALID, path + ":" + std::to_string(line) + ": " + what);
}

// Reads a basic string starting at the opening quote; returns it and the rest of the line.
std::pair<std::string, std::string> quoted(const std::string& s, const std::string& path, int line) {
    if (s.empty() || s[0] != '"') fail_at(path, line, "the value must be a \"quoted string\"");
    std::string out;
    for (size_t i = 1; i < s.size(); ++i) {
        if (s[i] == '"') return {out, s.substr(i + 1)};
        if (s[i] == '\\') {
            if (i + 1 >= s.size() || (s[i + 1] != '"' && s[i + 1] != '\\'))
                fail_at(path, line, "only \\\" and \\\\ escapes are allowed");
            out += s[++i];
        } else {
            out += s[i];
        }
    }
    fail_at(path, line, "unterminated string");
}

void set_once(std::optional<std::string>& slot, std::string value, const std::string& key, const std::string& path,
              int line) {
    if (slot) fail_at(path, line, "key '" + key + "' is set twice");
    slot = std::move(value);
}

void check_values(const Manifest& m, const std::optional<std::string>& image, const std::string& path,
                  int image_line) {
    if (!image) throw sdk::Error(OMS_ERR_INVALID, path + ": missing key 'image' (the pinned image)");
    if (!is_pinned_image(*image))
        fail_at(path, image_line,
                "image '" + *image +
                    "' is not pinned: use an image ID (sha256:<64 hex>) or a digest (name@sha256:<64 hex>); "
                    "a tag can change under you");
    if (m.user && !user_problem(*m.user).empty()) throw sdk::Error(OMS_ERR_INVALID, path + ": user: " + user_problem(*m.user));
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
    Manifest m;
    m.path = path;
    std::optional<std::string> image;
    int image_line = 0;
    size_t start = 0;
    for (int line = 1; start < text.size(); ++line) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string s = trim(text.substr(start, end - start));
        start = end + 1;
        if (s.empty() || s[0] == '#') continue;
        size_t eq = s.find('=');
        if (eq == std::string::npos) fail_at(path, line, "expected key = \"value\"");
        std::string key = trim(s.substr(0, eq));
        auto [value, rest] = quoted(trim(s.substr(eq + 1)), path, line);
        rest = trim(rest);
        if (!rest.empty() && rest[0] != '#') fail_at(path, line, "unexpected text after the value");
        if (key == "image") {
            set_once(image, value, key, path, line);
            image_line = line;
        } else if (key == "user") {
            set_once(m.user, value, key, path, line);
        } else if (key == "archive") {
            set_once(m.archive, value, key, path, line);
        } else {
            fail_at(path, line, "unknown key '" + key + "' (known: image, user, archive)");
        }
    }
    check_values(m, image, path, image_line);
    m.image = *image;
    return m;
}

Manifest load_manifest(const std::string& path) {
    const auto text = sdk::read_text_file(path);
    if (!text)
        throw sdk::Error(OMS_ERR_INVALID, "cannot read the runtime manifest (or it is over 1 MiB) '" + path +
                                              "' (config key [plugin.docker] manifest)");
    return parse_manifest(*text, path);
}

}  // namespace oms::docker
