// npm's global prefix as the user set it in ~/.npmrc (`prefix=~/.npm-global`,
// what npm's docs suggest for `npm install -g` without root): the tools
// installed there live in <prefix>/lib/node_modules, linked from
// <prefix>/bin. oms reads only the `prefix` line here, on the host side; the
// file itself is never lent (it may hold registry tokens) and npm is not run.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace oms::policies {

// The last `prefix = VALUE` of `text` (npm's ini: `;` and `#` start comments,
// the value may be quoted), with a leading `~/`, `$HOME/` or `${HOME}/`
// replaced by `home`; nullopt when there is none or it is not absolute.
std::optional<std::string> npmrc_prefix_of(std::string_view text, std::string_view home);

// npmrc_prefix_of(<home>/.npmrc): opened O_NONBLOCK, a regular file of at
// most 64 KiB read once; anything else gives nullopt.
std::optional<std::string> npmrc_prefix(std::string_view home);

}  // namespace oms::policies
