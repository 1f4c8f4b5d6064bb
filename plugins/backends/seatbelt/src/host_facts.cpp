#include "host_facts.hpp"

#include <cstdlib>
#include <unistd.h>

#if defined(__APPLE__)
#include <dlfcn.h>
#endif

namespace oms::seatbelt {

namespace {

std::optional<std::string> env_value(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

void find_platform(HostFacts& facts) {
    if (auto injected = env_value("OMS_SEATBELT_PLATFORM")) {
        facts.platform = *injected;
        facts.platform_source = "OMS_SEATBELT_PLATFORM (test hook)";
        return;
    }
#if defined(__APPLE__)
    facts.platform = "macos";
#elif defined(__linux__)
    facts.platform = "linux";
#else
    facts.platform = "other";
#endif
    facts.platform_source = "build";
}

void find_sandbox_exec(HostFacts& facts, const std::optional<std::string>& configured) {
    facts.sandbox_exec = default_sandbox_exec;
    facts.exec_source = "default";
    if (configured && !configured->empty()) {
        facts.sandbox_exec = *configured;
        facts.exec_source = "config key sandbox_exec";
    }
    if (auto injected = env_value("OMS_SEATBELT_EXEC")) {
        facts.sandbox_exec = *injected;
        facts.exec_source = "OMS_SEATBELT_EXEC (test hook)";
    }
    // Only an absolute path: a relative one would be looked up in the cwd.
    facts.exec_usable = facts.sandbox_exec[0] == '/' && ::access(facts.sandbox_exec.c_str(), X_OK) == 0;
}

#if defined(__APPLE__)
// libsystem_sandbox's sandbox_check(pid, NULL, SANDBOX_FILTER_NONE) answers
// "is this process sandboxed at all". Looked up at run time: it is not in a
// public header.
bool sandbox_check_says_confined() {
    using check_fn = int (*)(pid_t, const char*, int, ...);
    auto check = reinterpret_cast<check_fn>(::dlsym(RTLD_DEFAULT, "sandbox_check"));
    return check != nullptr && check(::getpid(), nullptr, 0) != 0;
}
#endif

void find_nesting(HostFacts& facts) {
    if (env_value("APP_SANDBOX_CONTAINER_ID")) {
        facts.nested = true;
        facts.nested_reason = "APP_SANDBOX_CONTAINER_ID is set";
        return;
    }
#if defined(__APPLE__)
    if (facts.platform == "macos" && sandbox_check_says_confined()) {
        facts.nested = true;
        facts.nested_reason = "sandbox_check reports this process is sandboxed";
    }
#endif
}

}  // namespace

HostFacts gather_host_facts(const std::optional<std::string>& configured_exec) {
    HostFacts facts;
    find_platform(facts);
    find_sandbox_exec(facts, configured_exec);
    find_nesting(facts);
    return facts;
}

}  // namespace oms::seatbelt
