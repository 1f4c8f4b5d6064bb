#include "expectations.hpp"

#include <errno.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>

namespace oms::docker::runner {

bool expectations_hold(int& argi, int argc, char** argv) {
    for (; argi < argc && std::strncmp(argv[argi], "--expect=", 9) == 0; ++argi) {
        unsigned long long device = 0, inode = 0;
        int used = 0;
        const char* spec = argv[argi] + 9;
        if (std::sscanf(spec, "%llu:%llu:%n", &device, &inode, &used) != 2 || used == 0) {
            std::fprintf(stderr, "oms: bad argument %s\n", argv[argi]);
            return false;
        }
        const char* path = spec + used;
        struct stat st;
        if (lstat(path, &st) != 0 && errno == EACCES) {
            std::fprintf(stderr,
                         "oms: %s cannot be checked in the container: a folder on the way is closed to the "
                         "container's user; refusing to run (give that user search rights there: chmod u+x)\n",
                         path);
            return false;
        }
        if (lstat(path, &st) != 0 || static_cast<unsigned long long>(st.st_dev) != device ||
            static_cast<unsigned long long>(st.st_ino) != inode) {
            std::fprintf(stderr,
                         "oms: %s in the container is not what oms checked on the host (replaced while the "
                         "container was made?); refusing to run\n",
                         path);
            return false;
        }
    }
    return true;
}

}  // namespace oms::docker::runner
