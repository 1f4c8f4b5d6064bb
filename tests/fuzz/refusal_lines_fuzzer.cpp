// The run's refusal file (oms/refusal_log.hpp) as oms reads it at a run's
// end: lines a backend appended, which the run's summary, the run record
// and `oms explain --last` show. Read from text and from a descriptor (the
// file's bound). Properties: no crash; every refusal's source and host are
// printable ASCII of at most 255 bytes; its port is in range; and the
// summary line and the targets are made of them.
#include "oms/core/violation_log.hpp"

#include "fuzz_support.hpp"

#include <sys/mman.h>
#include <unistd.h>

using namespace oms::core;

namespace {

void check(const std::vector<Violation>& found) {
    ViolationLog log;
    for (const Violation& v : found) {
        OMS_FUZZ_REQUIRE(!v.source.empty() && v.source.size() <= 255 && oms::fuzz::printable_bytes(v.source));
        OMS_FUZZ_REQUIRE(!v.host.empty() && v.host.size() <= 255 && oms::fuzz::printable_bytes(v.host));
        OMS_FUZZ_REQUIRE(v.port >= 0 && v.port <= 65535);
        OMS_FUZZ_REQUIRE(!violation_target(v).empty());
        OMS_FUZZ_REQUIRE(oms::fuzz::printable_bytes(printable_text(v.rule)));
        log.record(v);
    }
    OMS_FUZZ_REQUIRE(log.count() == found.size());
    if (!found.empty()) OMS_FUZZ_REQUIRE(!refusal_summary(log).empty());
}

// The bytes through a descriptor, as refusals_in reads the run's file.
std::vector<Violation> through_descriptor(std::string_view bytes) {
    const int fd = memfd_create("oms-fuzz-refusals", MFD_CLOEXEC);
    OMS_FUZZ_REQUIRE(fd >= 0);
    OMS_FUZZ_REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    OMS_FUZZ_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
    std::vector<Violation> found = refusals_in(fd);
    close(fd);
    return found;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(oms::fuzz::as_text(data, size));
    const std::vector<Violation> parsed = parse_refusal_lines(text);
    check(parsed);
    const std::vector<Violation> read = through_descriptor(text);
    OMS_FUZZ_REQUIRE(read.size() == parsed.size());
    return 0;
}
