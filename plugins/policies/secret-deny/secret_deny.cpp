#include "secret_deny.hpp"

#include "config_lists.hpp"
#include "keypair_exemptions.hpp"
#include "paths.hpp"
#include "rule_emitter.hpp"
#include "secret_locations.hpp"

#include <oms/path.hpp>
#include <oms/path_resolver.hpp>

#include <algorithm>

namespace oms::policies {
namespace {

const oms_config_key keys[] = {
    {sizeof(oms_config_key), "extra_paths", OMS_CONFIG_STRING_ARRAY, OMS_CONFIG_NARROWS,
     "more files or folders denied for reading (absolute, ~/..., or relative to HOME); default []"},
    {sizeof(oms_config_key), "extra_suffixes", OMS_CONFIG_STRING_ARRAY, OMS_CONFIG_NARROWS,
     "more path endings denied for reading, like \"-keypair.json\"; default []"},
    // Widens reads: user config only (a worktree file setting it is refused).
    {sizeof(oms_config_key), "keypair_exempt", OMS_CONFIG_STRING_ARRAY, 0,
     "files the keypair suffix rules must not hide: paths or globs (absolute, ~/..., or relative to the "
     "worktree; ** for any folders), like \"node_modules/**/locales/id.json\"; user config only; default []"},
};

const char* const spec_suffixes[] = {"-keypair.json", "/id.json"};
const char* const keychain_services[] = {"com.apple.SecurityServer", "com.apple.securityd"};

// HOME as the context names it and the other names that reach the same folder:
// its real path and the caller's $HOME when they differ (a symlinked HOME). A
// backend that matches literal paths must see every spelling a command may use.
std::vector<std::string> home_spellings(const oms::sdk::Context& context) {
    std::vector<std::string> spellings{std::string(context.home())};
    const auto resolved = real_path(context.home());
    if (!resolved) return spellings;
    if (*resolved != context.home()) spellings.push_back(*resolved);
    const auto caller_home = context.env("HOME");
    if (caller_home && sdk::path::is_absolute(*caller_home) && real_path(*caller_home) == resolved &&
        std::find(spellings.begin(), spellings.end(), *caller_home) == spellings.end())
        spellings.emplace_back(*caller_home);
    return spellings;
}

// Denies `path` under every spelling of HOME whether or not it exists (a secret
// created during the run must stay closed), and also where it leads when it is
// a symlink (~/.ssh -> /vault/ssh).
void deny_secret(RuleEmitter& emit, const std::vector<std::string>& homes, std::string_view relative,
                 std::string_view reason) {
    for (const std::string& home : homes) emit.add(OMS_RULE_READ_DENY, join(home, relative), reason);
    if (const auto resolved = real_path(join(homes.front(), relative)))
        emit.add(OMS_RULE_READ_DENY, *resolved, std::string(reason) + " (resolved)");
}

// An absolute path from the config: as given, and its target when it is a symlink.
void deny_path(RuleEmitter& emit, const std::string& path, std::string_view reason) {
    emit.add(OMS_RULE_READ_DENY, path, reason);
    if (const auto resolved = real_path(path)) emit.add(OMS_RULE_READ_DENY, *resolved, std::string(reason) + " (resolved)");
}

// $CARGO_HOME moves Cargo's token with it: deny it there too (as given and
// resolved), beside the ~/.cargo spellings already in the list.
void deny_cargo_home_tokens(const oms::sdk::Context& context, RuleEmitter& emit) {
    const auto cargo_home = context.env("CARGO_HOME");
    if (!cargo_home || !sdk::path::is_absolute(*cargo_home)) return;
    // Through the folder resolved as well: the token may be created after this
    // run starts (`cargo login`), when the file itself cannot be resolved yet.
    const auto resolved_home = real_path(*cargo_home);
    for (const std::string& file : cargo_secret_files()) {
        const std::string reason = "$CARGO_HOME/" + file + " (registry token)";
        deny_path(emit, join(*cargo_home, file), reason);
        if (resolved_home) emit.add(OMS_RULE_READ_DENY, join(*resolved_home, file), reason + " (resolved)");
    }
}

}  // namespace

const oms_config_key* SecretDeny::config_keys() { return keys; }
size_t SecretDeny::config_key_count() { return sizeof keys / sizeof keys[0]; }

std::vector<std::string> SecretDeny::extra_suffixes() const {
    std::vector<std::string> suffixes = host().strings("extra_suffixes");
    for (const std::string& suffix : suffixes)
        if (suffix.empty()) config_error(id, "extra_suffixes", "an entry is empty (it would match every path)");
    return suffixes;
}

void SecretDeny::contribute(const oms::sdk::Context& context, const oms::sdk::RuleSink& sink) {
    const sdk::PathResolverScope resolving;  // each folder above the roots looked at once
    // Config first: a bad entry fails the run before any rule is added.
    const auto paths = config_paths(host(), id, "extra_paths", context.home(), RelativePaths::from_home);
    const auto suffixes = extra_suffixes();
    const auto exempt = host().strings("keypair_exempt");
    for (const std::string& entry : exempt)
        if (entry.empty()) config_error(id, "keypair_exempt", "an entry is empty");
    RuleEmitter emit(sink, id);
    const auto homes = home_spellings(context);
    for (const std::string& home : homes) emit.add(OMS_RULE_READ_DENY_TREE, home, "HOME");
    for (const std::string& secret : home_secret_locations()) deny_secret(emit, homes, secret, "~/" + secret);
    deny_cargo_home_tokens(context, emit);
    for (const std::string& path : paths) deny_path(emit, path, "extra_paths (config)");
    for (const char* suffix : spec_suffixes) emit.add(OMS_RULE_READ_DENY_SUFFIX, suffix, "keypair file");
    for (const std::string& suffix : suffixes) emit.add(OMS_RULE_READ_DENY_SUFFIX, suffix, "extra_suffixes (config)");
    // After the suffixes: each exempt file is reopened by an exact read allow.
    std::vector<std::string> all_suffixes(std::begin(spec_suffixes), std::end(spec_suffixes));
    all_suffixes.insert(all_suffixes.end(), suffixes.begin(), suffixes.end());
    for (const Exemption& e : resolve_keypair_exemptions(exempt, std::string(context.home()),
                                                         std::string(context.worktree()), all_suffixes))
        emit.add(OMS_RULE_READ_ALLOW_TREE, e.file, "keypair_exempt (user config): " + e.entry);
    for (const char* service : keychain_services) emit.add(OMS_RULE_IPC_DENY_SERVICE, service, "keychain");
}

}  // namespace oms::policies
