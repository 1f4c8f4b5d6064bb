// The empty folder and empty file mounted over hidden paths, and the
// sandbox's resolv.conf (see dns_responder.hpp), made fresh for each spawn,
// in the run's own folder (oms/run_folder.hpp), which no command sees; in
// /tmp when the host gives no such folder. A command that can write there
// (another run's, with /tmp as a write root) could try to swap them (say
// for a symlink to ~/.ssh) before a mount is made: the child opens them
// without following symlinks and checks device and inode against the ones
// recorded here before mounting.
#pragma once
#include <stdint.h>

#include <string>

namespace oms::landlock {

class MaskSources {
public:
    // The resolv.conf names `resolver` (host byte order; TaskNetwork).
    // Throws oms::sdk::Error on failure.
    explicit MaskSources(const std::string& parent, uint32_t resolver = 0x7f000001);
    ~MaskSources();  // unlinks them; mounts made from them keep the inodes
    MaskSources(const MaskSources&) = delete;
    MaskSources& operator=(const MaskSources&) = delete;
    const std::string& folder() const { return folder_path_; }
    const std::string& file() const { return file_path_; }
    const std::string& resolv_conf() const { return resolv_path_; }
    // Identity of what was created: {st_dev, st_ino}.
    struct Identity {
        unsigned long long device = 0, inode = 0;
    };
    Identity folder_identity() const { return folder_id_; }
    Identity file_identity() const { return file_id_; }
    Identity resolv_conf_identity() const { return resolv_id_; }

private:
    std::string base_, folder_path_, file_path_, resolv_path_;
    Identity folder_id_, file_id_, resolv_id_;
};

}  // namespace oms::landlock
