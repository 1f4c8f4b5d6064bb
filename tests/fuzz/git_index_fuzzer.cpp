// oms verify's git index reader against any bytes a command could leave in
// .git/index. Properties: no crash; a problem comes with empty lists; every
// path listed is relative, at most 4095 bytes, with no empty, ".", ".." or
// ".git" part, listed once; the lists together are within the reader's
// bound of 8 times the file's size.
#include "oms/core/git_index.hpp"

#include "fuzz_support.hpp"

#include <set>

namespace {

bool acceptable_path(std::string_view path) {
    if (path.empty() || path.size() > 4095 || path.front() == '/') return false;
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        const std::string_view part = path.substr(start, end - start);
        if (part.empty() || part == "." || part == ".." || part == ".git") return false;
        start = end + 1;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto parsed = oms::core::parse_git_index(oms::fuzz::as_text(data, size));
    if (parsed.problem) {
        OMS_FUZZ_REQUIRE(!parsed.problem->empty());
        OMS_FUZZ_REQUIRE(parsed.files.empty() && parsed.sparse_folders.empty());
        return 0;
    }
    size_t total = 0;
    std::set<std::string> seen;
    for (const std::string& file : parsed.files) {
        OMS_FUZZ_REQUIRE(acceptable_path(file));
        OMS_FUZZ_REQUIRE(seen.insert(file).second);
        total += file.size();
    }
    for (const std::string& folder : parsed.sparse_folders) {
        OMS_FUZZ_REQUIRE(folder.size() >= 2 && folder.back() == '/');
        OMS_FUZZ_REQUIRE(acceptable_path(std::string_view(folder).substr(0, folder.size() - 1)));
        total += folder.size();
    }
    OMS_FUZZ_REQUIRE(total <= 8 * size);
    return 0;
}
