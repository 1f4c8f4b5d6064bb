// The check every plugin file passes before the dynamic loader sees it,
// against any bytes a plugin folder could hold (a copy cut short, garbage).
// The bytes are read through the check's own reader, from memory and from
// a file (check_plugin_file, as oms runs it). Properties: no crash, no read
// outside the bytes, both ways agree, and a file the check accepts has its
// ELF header and every segment within it.
#include "oms/core/plugin_file_check.hpp"

#include "fuzz_support.hpp"

#include <elf.h>
#include <link.h>

#include <cstring>

namespace {

// Every segment of bytes the check accepted, checked again here the plain way.
bool segments_within(std::string_view bytes) {
    ElfW(Ehdr) header;
    if (bytes.size() < sizeof header) return false;
    std::memcpy(&header, bytes.data(), sizeof header);
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        ElfW(Phdr) segment;
        const uint64_t at = header.e_phoff + uint64_t{i} * sizeof segment;
        if (at > bytes.size() || bytes.size() - at < sizeof segment) return false;
        std::memcpy(&segment, bytes.data() + at, sizeof segment);
        if (segment.p_offset > bytes.size() || segment.p_filesz > bytes.size() - segment.p_offset) return false;
    }
    return header.e_phnum > 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static oms::fuzz::InputFile file("plugin-elf");
    const std::string_view bytes = oms::fuzz::as_text(data, size);
    const oms::core::ReadAt from_memory = [&](uint64_t offset, void* out, size_t length) {
        if (offset > bytes.size() || length > bytes.size() - offset) return false;
        std::memcpy(out, bytes.data() + offset, length);
        return true;
    };
    const auto in_memory = oms::core::elf_layout_problem(bytes.size(), from_memory);
    if (!in_memory) OMS_FUZZ_REQUIRE(segments_within(bytes));
    if (in_memory) OMS_FUZZ_REQUIRE(!in_memory->empty());
    const auto on_disk = oms::core::check_plugin_file(file.write(bytes));
    OMS_FUZZ_REQUIRE(on_disk.problem.has_value() == in_memory.has_value());
    return 0;
}
