// A hash of a text that stays the same across builds and versions (FNV-1a,
// 64 bits), for the names of small marker and record files in oms's state
// folder: std::hash may change with the standard library.
#pragma once
#include <cstdint>
#include <string>

namespace oms::core {

inline std::string stable_hash(const std::string& text) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    return std::to_string(hash);
}

}  // namespace oms::core
