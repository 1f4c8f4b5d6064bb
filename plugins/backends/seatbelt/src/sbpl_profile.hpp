// Renders an oms policy as a Seatbelt (SBPL) profile, in the order the spec's
// "macOS: Seatbelt" section gives. Pure: the same rules and resolver always
// give the same text and parameters.
//
// Every path, pattern and service name becomes a -D parameter referenced with
// (param "NAME"); the profile text itself only ever contains fixed words,
// parameter names and validated port numbers. So no path, however hostile
// (quotes, backslashes, brackets, newlines, non-ASCII, regex metacharacters),
// can make the profile invalid or change what a rule means.
#pragma once
#include "path_spellings.hpp"

#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace oms::seatbelt {

// One `-D NAME=value` argument of sandbox-exec.
struct ProfileParameter {
    std::string name;
    std::string value;
    std::string origin;  // the rule's origin, for the rendered listing only
};

struct Profile {
    std::string text;                         // the SBPL profile, '\n'-separated lines
    std::vector<ProfileParameter> parameters; // in first-use order
    std::vector<std::string> limits;          // policy parts the profile cannot express exactly
};

// Throws oms::sdk::Error(OMS_ERR_INVALID) for a malformed rule (relative or
// empty path, NUL byte, port out of range) and OMS_ERR_UNSUPPORTED for a rule
// kind it does not know. ENV_PASS rules are not part of a profile (the
// environment is passed by the launcher).
Profile render_profile(const std::vector<oms::sdk::Rule>& rules, const PathResolver& resolve);

}  // namespace oms::seatbelt
