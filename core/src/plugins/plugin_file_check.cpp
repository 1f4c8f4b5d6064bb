#include "oms/core/plugin_file_check.hpp"

#include "oms/core/scoped_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#ifdef __linux__
#include <elf.h>
#include <link.h>

// This program's own ELF header, which every GNU-compatible linker provides:
// a plugin must match its class, byte order and machine.
extern "C" const ElfW(Ehdr) __ehdr_start;
#endif

namespace oms::core {

namespace {

constexpr const char* kCutShort = " (cut short: an interrupted copy or a full disk?)";

// offset + length <= limit, without overflowing.
bool fits(uint64_t offset, uint64_t length, uint64_t limit) { return offset <= limit && length <= limit - offset; }

std::string ends_inside(uint64_t file_size, const std::string& what, uint64_t end) {
    return "the file ends at byte " + std::to_string(file_size) + ", inside " + what + " (which runs to byte " +
           std::to_string(end) + ")" + kCutShort;
}

#ifdef __linux__

std::optional<std::string> identity_problem(const ElfW(Ehdr) & header) {
    const ElfW(Ehdr)& own = __ehdr_start;
    if (header.e_ident[EI_CLASS] != own.e_ident[EI_CLASS])
        return std::string("an ELF file of another word size (") +
               (header.e_ident[EI_CLASS] == ELFCLASS32   ? "32-bit"
                : header.e_ident[EI_CLASS] == ELFCLASS64 ? "64-bit"
                                                         : "unknown class") +
               ") than this oms";
    if (header.e_ident[EI_DATA] != own.e_ident[EI_DATA]) return "an ELF file of another byte order than this oms";
    if (header.e_machine != own.e_machine)
        return "an ELF file for another machine (ELF machine " + std::to_string(header.e_machine) +
               ", this oms runs on " + std::to_string(own.e_machine) + ")";
    if (header.e_type != ET_DYN)
        return "an ELF file that is not a shared object (ELF type " + std::to_string(header.e_type) + ")";
    return std::nullopt;
}

std::optional<std::string> header_problem(uint64_t file_size, const ReadAt& read_at, ElfW(Ehdr) & header) {
    if (file_size == 0) return "the file is empty" + std::string(kCutShort);
    unsigned char magic[SELFMAG];
    if (file_size < SELFMAG || !read_at(0, magic, SELFMAG) || std::memcmp(magic, ELFMAG, SELFMAG) != 0)
        return std::string("not an ELF shared object (it does not start with the ELF signature)");
    if (file_size < sizeof header) return ends_inside(file_size, "the ELF header", sizeof header);
    if (!read_at(0, &header, sizeof header)) return std::string("the file changed while it was checked");
    return identity_problem(header);
}

const char* segment_kind(uint32_t type) {
    switch (type) {
        case PT_LOAD: return "a loadable segment";
        case PT_DYNAMIC: return "the dynamic segment";
        case PT_NOTE: return "a note segment";
        default: return "a segment";
    }
}

// Every segment's bytes: the loader maps the loadable ones and reads the
// others (notes, the dynamic section) through those mappings or by reading.
std::optional<std::string> segments_problem(uint64_t file_size, const ReadAt& read_at, const ElfW(Ehdr) & header) {
    if (header.e_phnum == 0) return std::string("an ELF file without program headers");
    if (header.e_phentsize != sizeof(ElfW(Phdr)))
        return "program headers of " + std::to_string(header.e_phentsize) + " bytes (want " +
               std::to_string(sizeof(ElfW(Phdr))) + ")";
    const uint64_t table_size = uint64_t{header.e_phnum} * sizeof(ElfW(Phdr));
    if (!fits(header.e_phoff, table_size, file_size)) {
        if (header.e_phoff > file_size) return std::string("program headers placed past the end of the file");
        return ends_inside(file_size, "the program headers", header.e_phoff + table_size);
    }
    // One read for the table (within the file, checked above): this runs
    // for every plugin on every command.
    std::vector<ElfW(Phdr)> table(header.e_phnum);
    if (!read_at(header.e_phoff, table.data(), table_size)) return std::string("the file changed while it was checked");
    for (const ElfW(Phdr) & segment : table) {
        // Even an empty segment: the loader may map the page at its offset
        // and clear the rest of it, a page past the end of the file.
        if (!fits(segment.p_offset, segment.p_filesz, file_size)) {
            const bool overflows = segment.p_offset > UINT64_MAX - segment.p_filesz;
            if (overflows) return std::string("a segment whose size overflows");
            return ends_inside(file_size, segment_kind(segment.p_type), segment.p_offset + segment.p_filesz);
        }
    }
    return std::nullopt;
}

// The loader does not read the section headers, but they are the last bytes
// a linker writes: a copy cut short in them is still a broken copy.
std::optional<std::string> sections_problem(uint64_t file_size, const ElfW(Ehdr) & header) {
    if (header.e_shnum == 0) return std::nullopt;
    if (header.e_shentsize != sizeof(ElfW(Shdr)))
        return "section headers of " + std::to_string(header.e_shentsize) + " bytes (want " +
               std::to_string(sizeof(ElfW(Shdr))) + ")";
    const uint64_t table_size = uint64_t{header.e_shnum} * sizeof(ElfW(Shdr));
    if (fits(header.e_shoff, table_size, file_size)) return std::nullopt;
    if (header.e_shoff > UINT64_MAX - table_size) return std::string("section headers whose place overflows");
    return ends_inside(file_size, "the section headers", header.e_shoff + table_size);
}

#endif  // __linux__

int64_t nanoseconds(const timespec& time) { return int64_t{time.tv_sec} * 1000000000 + time.tv_nsec; }

PluginFileIdentity identity_of(const struct stat& info) {
#ifdef __APPLE__
    return {info.st_dev, info.st_ino, info.st_size, nanoseconds(info.st_mtimespec), nanoseconds(info.st_ctimespec)};
#else
    return {info.st_dev, info.st_ino, info.st_size, nanoseconds(info.st_mtim), nanoseconds(info.st_ctim)};
#endif
}

const char* file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "not a file";
}

PluginFileCheck refused(std::string why) { return {std::move(why), {}}; }

std::string errno_text() { return std::strerror(errno); }

// Reads exactly `size` bytes at `offset` of `fd`.
bool read_exactly(int fd, uint64_t offset, void* out, size_t size) {
    auto* to = static_cast<char*>(out);
    while (size > 0) {
        const ssize_t n = pread(fd, to, size, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        to += n;
        offset += static_cast<uint64_t>(n);
        size -= static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

#ifdef __linux__
std::optional<std::string> elf_layout_problem(uint64_t file_size, const ReadAt& read_at) {
    ElfW(Ehdr) header;
    if (auto problem = header_problem(file_size, read_at, header)) return problem;
    if (auto problem = segments_problem(file_size, read_at, header)) return problem;
    return sections_problem(file_size, header);
}
#endif

std::optional<PluginFileIdentity> plugin_file_identity(const std::string& path) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) return std::nullopt;
    return identity_of(info);
}

PluginFileCheck check_plugin_file(const std::string& path) {
    // Not opened unless it is a regular file: opening a device can act.
    struct stat named {};
    if (stat(path.c_str(), &named) != 0) return refused("cannot inspect the file: " + errno_text());
    if (!S_ISREG(named.st_mode)) return refused(std::string("not a regular file (") + file_kind(named.st_mode) + ")");
    // O_NONBLOCK: a FIFO put there in the meantime must not hang oms.
    ScopedFd file(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (file.get() < 0) return refused("cannot open the file: " + errno_text());
    struct stat before {};
    if (fstat(file.get(), &before) != 0) return refused("cannot inspect the file: " + errno_text());
    if (!S_ISREG(before.st_mode) || before.st_ino != named.st_ino || before.st_dev != named.st_dev)
        return refused("the file was replaced while it was checked");
#ifdef __linux__
    const ReadAt read_at = [&](uint64_t offset, void* out, size_t size) {
        return read_exactly(file.get(), offset, out, size);
    };
    if (auto problem = elf_layout_problem(static_cast<uint64_t>(before.st_size), read_at)) return refused(*problem);
#endif
    struct stat after {};
    if (fstat(file.get(), &after) != 0 || identity_of(after) != identity_of(before))
        return refused("the file changed while it was checked (is it still being written?)");
    return {std::nullopt, identity_of(after)};
}

}  // namespace oms::core
