// The per-run private folder: <tmp>/oms-run-XXXXXX with home/ (the command's
// HOME) and tmp/ (its TMPDIR), all 0700, removed when the object dies,
// whatever happened to the command.
#pragma once
#include <string>

namespace oms::core {

class RunDir {
public:
    RunDir();  // throws UserError when it cannot be created
    ~RunDir();
    RunDir(const RunDir&) = delete;
    RunDir& operator=(const RunDir&) = delete;
    const std::string& root() const { return root_; }
    const std::string& home() const { return home_; }
    const std::string& temp() const { return temp_; }

private:
    std::string root_, home_, temp_;
};

}  // namespace oms::core
