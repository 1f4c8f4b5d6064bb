// The one exception type of the core: a message meant for the user, and the
// exit status oms ends with when it reaches main().
#pragma once
#include <stdexcept>
#include <string>

namespace oms::core {

// Exit statuses of oms itself (the command's own status passes through unchanged).
constexpr int kExitUsage = 2;         // bad flags or arguments
constexpr int kExitConfig = 78;       // bad configuration (EX_CONFIG)
constexpr int kExitUnavailable = 69;  // the chosen backend cannot run (EX_UNAVAILABLE)
constexpr int kExitRefused = 77;      // the user or policy refused the command (EX_NOPERM)
constexpr int kExitSoftware = 70;     // an internal error (EX_SOFTWARE)
constexpr int kExitInconclusive = 3;  // doctor --probe: nothing failed, but a positive control did,
                                      // so some rule could not be told (neither pass nor fail)

class UserError : public std::runtime_error {
public:
    UserError(int exit_code, const std::string& message) : std::runtime_error(message), exit_code_(exit_code) {}
    int exit_code() const noexcept { return exit_code_; }

private:
    int exit_code_;
};

}  // namespace oms::core
