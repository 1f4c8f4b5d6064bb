// dropped_variables and variable_relevance: which of the caller's variables the failure line names first.
#include "oms/core/env_options.hpp"
#include "oms/core/variable_relevance.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace oms::core;

namespace {

// A desktop session's environment: many variables sort before PYTHONPATH.
std::vector<std::string> crowded_environment() {
    return {"ANDROID_HOME=/a", "BROWSER=firefox", "CLOUDSDK_CONFIG=/c", "CLOUDSDK_PYTHON=/p", "COLORTERM=truecolor",
            "DBUS_SESSION_BUS_ADDRESS=unix:x", "DISPLAY=:0", "GITHUB_TOKEN=ghp-secret", "HOMEBREW_PREFIX=/h",
            "JOURNAL_STREAM=8:1", "MOZ_ENABLE_WAYLAND=1", "NODE_OPTIONS=--max-old-space-size=4096",
            "PYTHONPATH=src", "CC=clang", "XDG_RUNTIME_DIR=/run/user/1000", "PATH=/usr/bin",
            // A machine's own tool settings, many of them sorting before PYTHONPATH.
            "NODE_EXTRA_CA_CERTS=/c", "PIP_CERT=/c", "PIP_DEFAULT_TIMEOUT=60", "PIP_FIND_LINKS=/w",
            "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1"};
}

}  // namespace

TEST_CASE("dropped variables: those that decide which code runs first, then tools' settings, a session's own last; "
          "credentials only counted") {
    const DroppedVariables dropped = dropped_variables(crowded_environment(), {"PATH=/usr/bin"});
    const std::vector<std::string> expected{"CC", "NODE_OPTIONS", "PYTHONPATH",
                                            "NODE_EXTRA_CA_CERTS", "PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_FIND_LINKS",
                                            "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
                                            "ANDROID_HOME", "BROWSER", "CLOUDSDK_CONFIG", "CLOUDSDK_PYTHON",
                                            "HOMEBREW_PREFIX", "JOURNAL_STREAM", "MOZ_ENABLE_WAYLAND",
                                            "COLORTERM", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "XDG_RUNTIME_DIR"};
    CHECK(dropped.names == expected);
    CHECK(dropped.credentials == 1);
    // The failure line shows six names: PYTHONPATH is among them.
    const std::string six = describe_dropped(DroppedVariables{dropped.names, 0}, 6);
    CHECK(six == "CC, NODE_OPTIONS, PYTHONPATH, NODE_EXTRA_CA_CERTS, PIP_CERT, PIP_DEFAULT_TIMEOUT and 14 more");
    CHECK(six.find("ghp-secret") == std::string::npos);
    CHECK(six.find("GITHUB_TOKEN") == std::string::npos);
}

TEST_CASE("dropped variables: a variable that reaches the command is not named") {
    const DroppedVariables dropped = dropped_variables(crowded_environment(), {"PATH=/usr/bin", "PYTHONPATH=src"});
    CHECK(std::find(dropped.names.begin(), dropped.names.end(), "PYTHONPATH") == dropped.names.end());
    CHECK(std::find(dropped.names.begin(), dropped.names.end(), "CC") != dropped.names.end());  // control
}

TEST_CASE("variable relevance: families by prefix, look-alike prefixes are not taken") {
    for (const char* code : {"PYTHONPATH", "VIRTUAL_ENV", "NODE_ENV", "NODE_PATH", "GOPATH", "CFLAGS", "CI", "JAVA_HOME"})
        CHECK(relevance_of(code) == VariableRelevance::code);
    for (const char* tool : {"npm_config_prefix", "RUST_LOG", "CARGO_HOME", "GO111MODULE", "MAKEFLAGS", "PIP_CERT",
                             "PYTHONUNBUFFERED", "NODE_EXTRA_CA_CERTS"})
        CHECK(relevance_of(tool) == VariableRelevance::tool);
    for (const char* other : {"GOOGLE_CLOUD_PROJECT", "CIRCLE", "CCC", "EDITORCONFIG", "BROWSER"})
        CHECK(relevance_of(other) == VariableRelevance::other);
    for (const char* session : {"DISPLAY", "XDG_SESSION_TYPE", "SSH_AUTH_SOCK", "LESSOPEN"})
        CHECK(relevance_of(session) == VariableRelevance::session);
}
