// WRITE_SCRATCH_TREE: an overlay on the tree whose upper layer lives in the
// private /tmp (a tmpfs gone with the run), so writes succeed inside and
// never reach the host. When the overlay cannot be mounted the tree becomes
// read-only instead: stricter, never looser.
#include "child_steps.hpp"

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

constexpr size_t kPathRoom = 4096;

struct Text {
    char data[3 * kPathRoom + 64];
    size_t used = 0;
    bool fits = true;
    Text& add(const char* s) {
        for (; *s; ++s) {
            if (used + 1 >= sizeof data) {
                fits = false;
                break;
            }
            data[used++] = *s;
        }
        data[used] = '\0';
        return *this;
    }
    Text& add(unsigned number) {
        char digits[11];
        format_decimal(number, digits);
        return add(static_cast<const char*>(digits));
    }
};

// <temp>/.oms-scratch/<index>/{upper,work}; false when they cannot be made.
bool make_layer(const char* temp, unsigned index, Text& upper, Text& work) {
    Text base;
    base.add(temp).add("/.oms-scratch");
    mkdir(base.data, 0700);  // shared by the trees: EEXIST after the first
    base.add("/").add(index);
    upper.add(base.data).add("/upper");
    work.add(base.data).add("/work");
    return base.fits && upper.fits && work.fits && mkdir(base.data, 0700) == 0 && mkdir(upper.data, 0755) == 0 &&
           mkdir(work.data, 0700) == 0;
}

// In a user namespace the overlay may not set its trusted.* attributes, so
// removing or renaming a lower folder fails with EIO unless it keeps them as
// user.* attributes instead (`userxattr`, Linux 5.11, the same release that
// allows the mount there at all).
bool mount_overlay(const char* tree, const char* temp, unsigned index, bool in_user_namespace) {
    Text upper, work, options;
    if (!make_layer(temp, index, upper, work)) return false;
    options.add("lowerdir=").add(tree).add(",upperdir=").add(upper.data).add(",workdir=").add(work.data);
    if (in_user_namespace) options.add(",userxattr");
    return options.fits && mount("overlay", tree, "overlay", MS_NOSUID | MS_NODEV, options.data) == 0;
}

}  // namespace

void mount_scratch_trees(const ChildSpec& spec) {
    unsigned index = 0;
    for (const char* tree : spec.scratch_trees) {
        // The plan only lists trees when a private temp exists.
        if (spec.private_temps.empty() ||
            !mount_overlay(tree, spec.private_temps[0], index++, spec.need_user_namespace))
            bind_in_place(spec, tree, true);
    }
    for (const char* tree : spec.scratch_read_only) bind_in_place(spec, tree, true);
}

}  // namespace oms::landlock
