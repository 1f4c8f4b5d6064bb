// A small fake toolchain tree for the scan tests, and a scan helper that
// uses a short "untrusted" window so the tests need not wait 2 seconds.
#pragma once
#include <oms/keypair_walk_cached.hpp>
#include "temp_dir.hpp"

#include <string>
#include <vector>

namespace oms::sdk::test {

const std::vector<std::string>& keypair_suffixes();

// <base>/root with nested folders a/b/c/d/e, side folders, a few plain files
// and two keypairs: root/a/x-keypair.json and root/a/b/c/d/id.json. Waits
// past the test trust window so every folder is trusted once read.
struct ScanTree {
    oms::test::TempDir base{"oms-scan"};
    std::string root = base / "root";
    std::string cache = base / "cache";
    ScanKeeper* keeper = nullptr;  // the scan keeper asked, when a test sets one
    ScanTree();
    std::vector<std::string> scan(ScanStats* stats = nullptr) const;
    std::string path(const std::string& relative) const { return root + "/" + relative; }
};

// Sleeps past the test trust window (and the file system's timestamp tick).
void let_time_pass();

constexpr int64_t kTestWindowNs = 20'000'000;

}  // namespace oms::sdk::test
