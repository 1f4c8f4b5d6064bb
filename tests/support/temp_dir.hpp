// A temporary folder removed (with everything in it) when the object dies.
#pragma once
#include <string>

namespace oms::test {

class TempDir {
public:
    explicit TempDir(const std::string& prefix = "oms-test");
    // In `base` instead of the system temp folder.
    TempDir(const std::string& prefix, const std::string& base);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    // path() + "/" + relative
    std::string operator/(const std::string& relative) const { return path_ + "/" + relative; }

private:
    std::string path_;
};

// Small file helpers for building fake HOMEs and worktrees.
void write_file(const std::string& path, const std::string& content);  // creates parents
std::string read_file(const std::string& path);                          // throws when unreadable
bool exists(const std::string& path);
void make_dirs(const std::string& path);

}  // namespace oms::test
