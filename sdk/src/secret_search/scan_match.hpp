// What the keypair walks ask of each path: is it a folder to leave out, and
// does its name end with a keypair suffix, is it an entry named by a rule. Shared by the plain walk, the
// two-thread walk and the cached walk, so the three cannot drift apart.
#pragma once
#include <oms/keypair_walk.hpp>

#include <algorithm>
#include <cctype>
#include <string>

namespace oms::sdk {

inline bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ASCII letters compared without case (ScanRequest::fold_case).
inline bool ends_with_folded(const std::string& text, const std::string& suffix) {
    if (text.size() < suffix.size()) return false;
    const size_t start = text.size() - suffix.size();
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[start + i])) !=
            std::tolower(static_cast<unsigned char>(suffix[i])))
            return false;
    return true;
}

class ScanMatcher {
public:
    explicit ScanMatcher(const ScanRequest& request) : request_(request) {}
    bool skipped(const std::string& folder) const {
        return std::find(request_.skip.begin(), request_.skip.end(), folder) != request_.skip.end();
    }
    // An entry whose name a WRITE_DENY_NAME rule gives (".git").
    // The first byte is compared first: it runs for every entry of the tree.
    bool named(const char* name) const {
        for (const auto& wanted : request_.names)
            if (!wanted.empty() && wanted[0] == name[0] && wanted == name) return true;
        return false;
    }
    bool matches(const std::string& path) const {
        for (const auto& suffix : request_.suffixes)
            if (request_.fold_case ? ends_with_folded(path, suffix) : ends_with(path, suffix)) return true;
        return false;
    }

private:
    const ScanRequest& request_;
};

}  // namespace oms::sdk
