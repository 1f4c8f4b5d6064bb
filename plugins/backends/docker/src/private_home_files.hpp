// What of the run's private HOME (made on the host by the core for every
// backend: .gitconfig with the harmless keys of the user's, .npmrc without
// retries, links to the toolchain folders) a container's HOME gets. The
// container's HOME is a tmpfs, so the runner writes these into it before
// each command (home_seed.hpp). Files are carried as they are; a link only
// when the container shows its target (a toolchain folder mounted with --ro
// or --rw, at the same path): the image brings its own toolchain otherwise,
// and a link to nothing would stop a tool from making that folder in HOME.
#pragma once
#include "run_inputs.hpp"

#include "../runner/home_seed.hpp"

#include <string>
#include <vector>

namespace oms::docker {

struct PrivateHomeFiles {
    std::vector<home_seed::Entry> entries;
    std::vector<std::string> notes;  // what was left out, and why
};

// Reads in.private_home without following links (plain files up to 32 KiB,
// 48 KiB in all; folders to 4 levels).
PrivateHomeFiles private_home_files(const RunInputs& in);

// Whether `entry` (NAME=value) is CARGO_HOME or RUSTUP_HOME naming a folder
// below the user's real HOME that the container does not show. The core
// sets them to ~/.cargo and ~/.rustup when the user has not set them; in a
// container such a value names nothing and would override the image's own
// (an image's rustup needs its RUSTUP_HOME), so it is left out and the
// image's value or the tool's default ($HOME/.cargo in the container) applies.
bool unreachable_toolchain_home(const std::string& entry, const RunInputs& in);

}  // namespace oms::docker
