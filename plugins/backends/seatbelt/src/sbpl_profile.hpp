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

#include <oms/run_folder.hpp>
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

// This run's folder and the folder every run's folder lies in
// (oms/run_folder.hpp). The system temp folders Seatbelt lets every command
// write hold <base>, so without more the command of one run could read and
// write the folders of every other run.
using oms::sdk::RunFolder;
using oms::sdk::run_folder_of;

// Throws oms::sdk::Error(OMS_ERR_INVALID) for a malformed rule (relative or
// empty path, NUL byte, port out of range) and OMS_ERR_UNSUPPORTED for a rule
// kind it does not know. ENV_PASS rules are not part of a profile (the
// environment is passed by the launcher). With `run`, every folder named
// OMS_RUN_DIR_PREFIX... in run.base is closed to reads and writes but
// run.own, which is reopened (other runs' folders, and names a command could
// squat for the next run).
Profile render_profile(const std::vector<oms::sdk::Rule>& rules, const PathResolver& resolve,
                       const RunFolder& run = {});

}  // namespace oms::seatbelt
