// The environment variable names of the spec's allowlist, and the names that
// must never reach a command whatever the configuration says (credentials).
#pragma once
#include <string_view>
#include <vector>

namespace oms::policies {

// The spec's allowlist, in the spec's order: exact names, no patterns.
const std::vector<std::string_view>& spec_allowlist();

// A POSIX-style variable name: [A-Za-z_][A-Za-z0-9_]*. Anything else (a
// pattern like "LC_*", "NAME=value", an empty string) is not a name.
bool is_variable_name(std::string_view name);

// True for names that look like credentials, compared without regard to case:
//  - AWS_* (every AWS setting can carry or select a credential);
//  - any name containing SECRET, PASSWORD, PASSWD, APIKEY, API_KEY, CREDENTIAL
//    or PRIVATE_KEY;
//  - any name with a "_"-separated word TOKEN (GITHUB_TOKEN, GH_TOKEN_FILE);
//  - any name whose last word is KEY (STRIPE_KEY, SECRET_KEY, ACCESS_KEY).
// Words, not substrings, for TOKEN and KEY, so TOKENIZERS_PARALLELISM or
// KEYBOARD_LAYOUT are not caught.
bool never_passes(std::string_view name);

}  // namespace oms::policies
