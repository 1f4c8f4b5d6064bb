// The keypair search's scan cache file (sdk/src/secret_search/
// scan_cache.cpp) as a start reads it: the summary, the folders' ids,
// then the records. Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so
// the checksums do not stop the fuzzer before the parse. Properties: no
// crash; the summary's folder list has the size it claims; records that
// load are written back and load again to the same records.
//
// OMS_FUZZ_WRITE_SEEDS=<folder> makes the target write its seed caches
// there (made by save_scan_cache) and exit: tests/fuzz/corpus/scan_cache.
#include <oms/scan_cache.hpp>

#include "fuzz_support.hpp"

#include <cstdlib>

using namespace oms::sdk;

namespace {

const std::string kRoot = "/work/tree";

ScanShape shape() { return {{".pem", "id_rsa"}, {".git"}, true}; }

FolderRecord folder_record(uint64_t inode, std::vector<std::string> subfolders) {
    FolderRecord record;
    record.stamp = {1, inode, 1000, 2000};
    record.trusted = true;
    record.subfolders = std::move(subfolders);
    return record;
}

void write_seeds(const std::string& folder) {
    FolderRecord root = folder_record(2, {"src", ".git"});
    root.matches = {{"key.pem", false}, {"id_rsa", true}};
    root.named = {".git"};
    root.links = {"id_rsa"};
    const FolderRecord src = folder_record(3, {});
    const CacheEntries entries{{"", &root}, {"src", &src}};
    KeeperMark mark;
    mark.id[0] = 7;
    mark.moment = 42;
    WalkFacts facts;
    facts.skip = {"node_modules"};
    facts.too_deep = {kRoot + "/deep"};
    save_scan_cache(folder + "/two-folders", kRoot, shape(), mark, entries, facts, 9);
    save_scan_cache(folder + "/empty", kRoot, shape(), {}, {});
    std::exit(0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* folder = std::getenv("OMS_FUZZ_WRITE_SEEDS")) write_seeds(folder);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static oms::fuzz::InputFile file("scan-cache");
    const auto cache = ScanCacheFile::open(file.write(oms::fuzz::as_text(data, size)), kRoot, shape());
    if (!cache) return 0;
    if (const auto ids = cache->folders()) OMS_FUZZ_REQUIRE(ids->size() == cache->summary().folder_count);
    const auto records = cache->records();
    if (!records) return 0;
    OMS_FUZZ_REQUIRE(records->root == kRoot && records->shape == shape());
    OMS_FUZZ_REQUIRE(save_scan_cache(file.path(), *records));
    const auto again = load_scan_cache(file.path(), kRoot, shape());
    OMS_FUZZ_REQUIRE(again && again->folders.size() == records->folders.size());
    for (const auto& [relative, record] : records->folders) {
        const auto found = again->folders.find(relative);
        OMS_FUZZ_REQUIRE(found != again->folders.end());
        OMS_FUZZ_REQUIRE(found->second.stamp == record.stamp && found->second.subfolders == record.subfolders &&
                         found->second.named == record.named && found->second.links == record.links);
    }
    return 0;
}
