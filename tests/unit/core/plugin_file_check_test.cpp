// The plugin file check on ELF headers made in memory: what the loader
// would map past the end of the file, and files for another machine.
#include "oms/core/plugin_file_check.hpp"

#include <elf.h>
#include <link.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

using oms::core::elf_layout_problem;

namespace {

// This program's own ELF header: a plugin must match its class and machine.
ElfW(Ehdr) own_header() {
    std::ifstream self("/proc/self/exe", std::ios::binary);
    ElfW(Ehdr) header;
    self.read(reinterpret_cast<char*>(&header), sizeof header);
    REQUIRE(self.gcount() == static_cast<std::streamsize>(sizeof header));
    return header;
}

// A shared object of this machine: its header and one loadable segment
// holding both, nothing else.
struct TinyElf {
    ElfW(Ehdr) header = own_header();
    ElfW(Phdr) segment{};
    TinyElf() {
        header.e_type = ET_DYN;
        header.e_phoff = sizeof header;
        header.e_phentsize = sizeof segment;
        header.e_phnum = 1;
        header.e_shoff = 0;
        header.e_shnum = 0;
        segment.p_type = PT_LOAD;
        segment.p_offset = 0;
        segment.p_filesz = sizeof header + sizeof segment;
        segment.p_memsz = segment.p_filesz;
    }
    std::string bytes() const {
        std::string out(reinterpret_cast<const char*>(&header), sizeof header);
        out.append(reinterpret_cast<const char*>(&segment), sizeof segment);
        return out;
    }
};

std::optional<std::string> problem_of(const std::string& bytes) {
    return elf_layout_problem(bytes.size(), [&](uint64_t offset, void* out, size_t size) {
        if (offset > bytes.size() || size > bytes.size() - offset) return false;
        std::memcpy(out, bytes.data() + offset, size);
        return true;
    });
}

}  // namespace

TEST_CASE("plugin file check: a shared object of this machine whose segments lie in the file passes") {
    const auto problem = problem_of(TinyElf().bytes());
    INFO(problem.value_or("no problem"));
    CHECK_FALSE(problem);
}

TEST_CASE("plugin file check: a segment past the end of the file is refused, even an empty one") {
    TinyElf longer;
    longer.segment.p_filesz = 4096;
    CHECK(problem_of(longer.bytes()) ==
          "the file ends at byte 120, inside a loadable segment (which runs to byte 4096) (cut short: an interrupted "
          "copy or a full disk?)");
    // Found by fuzzing: no bytes, but placed past the end (the loader maps
    // the page there and clears the rest of it).
    TinyElf empty_past_end;
    empty_past_end.segment.p_offset = 8192;
    empty_past_end.segment.p_filesz = 0;
    CHECK_THAT(problem_of(empty_past_end.bytes()).value_or(""), Catch::Contains("the file ends at byte 120"));
    TinyElf overflowing;
    overflowing.segment.p_offset = 16;
    overflowing.segment.p_filesz = UINT64_MAX;
    CHECK(problem_of(overflowing.bytes()) == "a segment whose size overflows");
}

TEST_CASE("plugin file check: headers cut short or placed past the end are refused") {
    const std::string bytes = TinyElf().bytes();
    CHECK(problem_of(bytes.substr(0, 100))
              .value_or("")
              .rfind("the file ends at byte 100, inside the program headers", 0) == 0);
    TinyElf sections;
    sections.header.e_shoff = 64;
    sections.header.e_shnum = 3;
    sections.header.e_shentsize = sizeof(ElfW(Shdr));
    CHECK_THAT(problem_of(sections.bytes()).value_or(""), Catch::Contains("inside the section headers"));
    TinyElf far_headers;
    far_headers.header.e_phoff = 1 << 20;
    CHECK(problem_of(far_headers.bytes()) == "program headers placed past the end of the file");
}

TEST_CASE("plugin file check: another machine, word size or file type is named") {
    TinyElf other_machine;
    other_machine.header.e_machine = other_machine.header.e_machine == EM_S390 ? EM_ARM : EM_S390;
    CHECK_THAT(problem_of(other_machine.bytes()).value_or(""), Catch::Contains("an ELF file for another machine"));
    TinyElf other_class;
    other_class.header.e_ident[EI_CLASS] = other_class.header.e_ident[EI_CLASS] == ELFCLASS64 ? ELFCLASS32 : ELFCLASS64;
    CHECK_THAT(problem_of(other_class.bytes()).value_or(""), Catch::Contains("another word size"));
    TinyElf program;
    program.header.e_type = ET_EXEC;
    CHECK(problem_of(program.bytes()) == "an ELF file that is not a shared object (ELF type 2)");
    TinyElf odd_entries;
    odd_entries.header.e_phentsize = 40;
    CHECK_THAT(problem_of(odd_entries.bytes()).value_or(""), Catch::Contains("program headers of 40 bytes"));
    CHECK(problem_of("\x7f"
                     "ELX and more") == "not an ELF shared object (it does not start with the ELF signature)");
    CHECK(problem_of("") == "the file is empty (cut short: an interrupted copy or a full disk?)");
}
