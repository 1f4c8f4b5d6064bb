#include "npm_prefix.hpp"

#include "paths.hpp"

#include <oms/path.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

namespace oms::policies {

namespace {

constexpr size_t kMaxNpmrcSize = 64 * 1024;

std::string_view trimmed(std::string_view text) {
    const size_t start = text.find_first_not_of(" \t\r");
    if (start == std::string_view::npos) return {};
    return text.substr(start, text.find_last_not_of(" \t\r") - start + 1);
}

std::string_view unquoted(std::string_view value) {
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
        return value.substr(1, value.size() - 2);
    return value;
}

std::string with_home(std::string_view value, std::string_view home) {
    for (std::string_view spelling : {"~/", "$HOME/", "${HOME}/"})
        if (value.rfind(spelling, 0) == 0) return join(home, value.substr(spelling.size()));
    return std::string(value);
}

}  // namespace

std::optional<std::string> npmrc_prefix_of(std::string_view text, std::string_view home) {
    std::optional<std::string> prefix;
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
        const std::string_view content = trimmed(line);
        if (content.empty() || content.front() == ';' || content.front() == '#') continue;
        const size_t equals = content.find('=');
        if (equals == std::string_view::npos || trimmed(content.substr(0, equals)) != "prefix") continue;
        const std::string value = with_home(unquoted(trimmed(content.substr(equals + 1))), home);
        prefix = sdk::path::is_absolute(value) ? std::optional<std::string>(value) : std::nullopt;
    }
    return prefix;
}

std::optional<std::string> npmrc_prefix(std::string_view home) {
    const std::string file = join(home, ".npmrc");
    // O_NONBLOCK: a FIFO put at the name cannot stall the run; only a regular file is read.
    const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat info {};
    std::string text;
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && size_t(info.st_size) <= kMaxNpmrcSize) {
        text.resize(kMaxNpmrcSize);
        const ssize_t got = ::read(fd, text.data(), text.size());
        text.resize(got > 0 ? size_t(got) : 0);
    }
    ::close(fd);
    return npmrc_prefix_of(text, home);
}

}  // namespace oms::policies
