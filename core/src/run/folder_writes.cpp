#include "oms/core/folder_writes.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::core {

namespace {

int open_or_make_folder(int parent_fd, const std::string& name) {
    if (mkdirat(parent_fd, name.c_str(), 0700) != 0 && errno != EEXIST) return -1;
    return openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

}  // namespace

int open_folders_at(int root_fd, const std::string& relative) {
    int current = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
    size_t start = 0;
    while (current >= 0 && start < relative.size()) {
        size_t slash = relative.find('/', start);
        if (slash == std::string::npos) slash = relative.size();
        const std::string name = relative.substr(start, slash - start);
        start = slash + 1;
        if (name.empty()) continue;
        const int next = name == ".." ? -1 : open_or_make_folder(current, name);
        close(current);
        current = next;
    }
    return current;
}

bool write_new_file_at(int folder_fd, const std::string& name, const std::string& text) {
    const int fd = openat(folder_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    return close(fd) == 0 && done == text.size();
}

}  // namespace oms::core
