#include "keypair_walk_tree.hpp"

#include <sys/stat.h>

#include <chrono>
#include <thread>

namespace oms::sdk::test {

const std::vector<std::string>& keypair_suffixes() {
    static const std::vector<std::string> suffixes{"-keypair.json", "/id.json"};
    return suffixes;
}

void let_time_pass() { std::this_thread::sleep_for(std::chrono::milliseconds(60)); }

ScanTree::ScanTree() {
    oms::test::make_dirs(path("a/b/c/d/e"));
    oms::test::make_dirs(path("side/one"));
    oms::test::make_dirs(path("side/two"));
    oms::test::make_dirs(cache);
    chmod(cache.c_str(), 0700);
    oms::test::write_file(path("a/x-keypair.json"), "[1,2,3]");
    oms::test::write_file(path("a/b/c/d/id.json"), "[4,5,6]");
    oms::test::write_file(path("a/b/c/d/e/notes.txt"), "nothing secret");
    oms::test::write_file(path("side/one/keypair.json.bak"), "not a match");
    let_time_pass();
}

std::vector<std::string> ScanTree::scan(ScanStats* stats) const {
    ScanRequest request{{root}, keypair_suffixes(), {}};
    return find_secret_files_cached(request, cache, stats, kTestWindowNs, keeper);
}

}  // namespace oms::sdk::test
