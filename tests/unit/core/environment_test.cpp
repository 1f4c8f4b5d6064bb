// The core's last line of defence for the environment: credentials never
// pass, whatever a plugin allowed.
#include "oms/core/environment.hpp"

#include "oms/core/account_name.hpp"

#include <catch2/catch.hpp>

using oms::core::command_environment;
using oms::core::never_passes;

TEST_CASE("credential-like names never pass") {
    for (const char* name : {"AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "OPENAI_API_KEY", "GITHUB_TOKEN",
                             "DB_PASSWORD", "CLIENT_SECRET", "STRIPE_KEY"})
        CHECK(never_passes(name));
    for (const char* name : {"PATH", "HOME", "TERM", "SOLANA_RPC_URL", "OMS_OUTPUT_DIR"}) CHECK_FALSE(never_passes(name));
}

TEST_CASE("the command environment: allowed names only, HOME and TMPDIR private, credentials dropped") {
    auto env = command_environment({"PATH=/bin", "HOME=/root", "TMPDIR=/tmp", "GITHUB_TOKEN=t", "OTHER=x"},
                                   {"PATH", "HOME", "TMPDIR", "GITHUB_TOKEN", "MISSING"}, "/run/home", "/run/tmp");
    CHECK(env == std::vector<std::string>{"HOME=/run/home", "PATH=/bin", "TMPDIR=/run/tmp"});
}

TEST_CASE("an allowed name the caller did not set takes the toolchain default; the caller's value wins") {
    const std::map<std::string, std::string> defaults{{"RUSTUP_HOME", "/h/.rustup"}, {"CARGO_HOME", "/h/.cargo"},
                                                      {"NOT_ALLOWED", "/x"}};
    auto unset = command_environment({"PATH=/bin", "RUSTUP_HOME="}, {"PATH", "RUSTUP_HOME", "CARGO_HOME"}, "/run/home",
                                     "/run/tmp", defaults);
    CHECK(unset == std::vector<std::string>{"CARGO_HOME=/h/.cargo", "PATH=/bin", "RUSTUP_HOME=/h/.rustup"});
    auto set = command_environment({"CARGO_HOME=/opt/cargo"}, {"CARGO_HOME"}, "/run/home", "/run/tmp", defaults);
    CHECK(set == std::vector<std::string>{"CARGO_HOME=/opt/cargo"});
    // A name the allowlist does not pass (or a config deny removed) gets no default either.
    auto denied = command_environment({}, {"PATH"}, "/run/home", "/run/tmp", defaults);
    CHECK(denied.empty());
}

TEST_CASE("USER and LOGNAME hold the uid's name, never the caller's values") {
    const std::vector<std::string> parent{"PATH=/bin", "USER=evil", "LOGNAME=evil"};
    auto env = command_environment(parent, {"PATH", "USER", "LOGNAME"}, "/run/home", "/run/tmp", {}, "ada");
    CHECK(env == std::vector<std::string>{"LOGNAME=ada", "PATH=/bin", "USER=ada"});
    // No password entry for the uid: both stay unset rather than taking the caller's.
    auto nameless = command_environment(parent, {"PATH", "USER", "LOGNAME"}, "/run/home", "/run/tmp", {}, "");
    CHECK(nameless == std::vector<std::string>{"PATH=/bin"});
    // Not passed (user_names = false, or denied): absent, whatever the name.
    auto off = command_environment(parent, {"PATH"}, "/run/home", "/run/tmp", {}, "ada");
    CHECK(off == std::vector<std::string>{"PATH=/bin"});
}

TEST_CASE("account_name reads the password database") {
    CHECK(oms::core::account_name(0) == "root");
    CHECK(oms::core::account_name(static_cast<uid_t>(4000000000u)).empty());
    CHECK(oms::core::is_account_name_variable("USER"));
    CHECK(oms::core::is_account_name_variable("LOGNAME"));
    CHECK_FALSE(oms::core::is_account_name_variable("HOME"));
}
