#include "mount_option.hpp"

#include <oms/sdk.hpp>

namespace oms::docker {

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not one
// (overlong forms, surrogates and values above U+10FFFF included).
size_t utf8_sequence(const std::string& s, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) return 1;
    size_t length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 0;
    if (length == 0 || lead > 0xf4 || i + length > s.size()) return 0;
    for (size_t k = 1; k < length; ++k)
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
    const unsigned char second = byte(i + 1);
    if (lead == 0xe0 && second < 0xa0) return 0;   // overlong
    if (lead == 0xed && second >= 0xa0) return 0;  // surrogate
    if (lead == 0xf0 && second < 0x90) return 0;   // overlong
    if (lead == 0xf4 && second >= 0x90) return 0;  // above U+10FFFF
    return length;
}

bool valid_utf8(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_sequence(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string printable(const std::string& path) {
    std::string out;
    for (unsigned char c : path) {
        if (c >= 0x20 && c < 0x7f) out += static_cast<char>(c);
        else {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace

void require_representable(const std::string& path, const std::string& what) {
    const char* reason = nullptr;
    if (path.find('\0') != std::string::npos) reason = "holds a NUL byte";
    else if (path.find_first_of("\n\r") != std::string::npos) reason = "holds a line break, which docker's mount syntax cannot carry";
    else if (!valid_utf8(path)) reason = "is not valid UTF-8, which docker's API cannot carry";
    if (reason)
        throw sdk::Error(OMS_ERR_UNSUPPORTED, "docker: " + what + " '" + printable(path) + "' " + reason +
                                                  "; rename it (docker mode refuses to run rather than mount a different path)");
}

std::string csv_field(const std::string& key, const std::string& value) {
    std::string field = key + "=" + value;
    if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
    std::string quoted = "\"";
    for (char c : field) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string bind_mount_flag(const std::string& source, const std::string& target, bool read_only) {
    require_representable(source, "mount source");
    require_representable(target, "mount target");
    return "--mount=type=bind," + csv_field("source", source) + "," + csv_field("target", target) +
           (read_only ? ",readonly" : "");
}

std::string tmpfs_mount_flag(const std::string& target, const std::string& options) {
    require_representable(target, "mount target");
    return "--mount=type=tmpfs," + csv_field("target", target) + "," + options;
}

}  // namespace oms::docker
