// env-allowlist: exact ENV_PASS lists on a fake HOME, credentials refused.
#include "env_allowlist.hpp"
#include "policy_test_support.hpp"
#include "variable_names.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace oms::test;
using oms::policies::EnvAllowlist;

namespace {

const std::vector<std::string> spec_names = {"PATH",   "HOME",        "CARGO_HOME",     "RUSTUP_HOME",
                                             "LANG",   "LC_ALL",      "LC_CTYPE",       "LC_MESSAGES",
                                             "TMPDIR", "SHELL",       "TERM",           "SOLANA_RPC_URL",
                                             "SURFNET_RPC_URL", "OMS_OUTPUT_DIR"};

// USER and LOGNAME, passed by default after the spec's names (the core sets their values).
const std::vector<std::string> user_names = {"USER", "LOGNAME"};
const char* const user_names_origin = "the uid's user name (set by oms)";

std::vector<std::string> passes(const std::vector<std::string>& names, const std::string& origin) {
    std::vector<std::string> out;
    for (const auto& name : names) out.push_back(rule(OMS_RULE_ENV_PASS, name, "env-allowlist: " + origin));
    return out;
}

template <class... Lists>
std::vector<std::string> concat(std::vector<std::string> first, const Lists&... rest) {
    (first.insert(first.end(), rest.begin(), rest.end()), ...);
    return first;
}

struct Fixture {
    TempDir tmp{"oms-env-allowlist"};
    FakeHost host;
    ContextBuilder context;
    Fixture() {
        make_dirs(tmp / "home");
        make_dirs(tmp / "work");
        context.home = tmp / "home";
        context.worktree = tmp / "work";
        // Secrets in the caller's environment must not matter to the list.
        context.parent_env = {"PATH=/usr/bin", "AWS_SECRET_ACCESS_KEY=x", "OPENAI_API_KEY=y", "GITHUB_TOKEN=z"};
    }
    Outcome run() { return run_policy<EnvAllowlist>(host, context); }
};

}  // namespace

TEST_CASE("env-allowlist passes exactly the spec's 14 names, in order, then USER and LOGNAME") {
    Fixture f;
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(passes(spec_names, "spec allowlist"), passes(user_names, user_names_origin)));
    CHECK(f.host.logs.empty());
}

TEST_CASE("env-allowlist: user_names = false leaves USER and LOGNAME out; true is the default") {
    Fixture f;
    f.host.booleans["user_names"] = false;
    const Outcome off = f.run();
    REQUIRE(off.status == OMS_OK);
    CHECK(off.rules == passes(spec_names, "spec allowlist"));
    // Positive control: set to true explicitly, both are back.
    f.host.booleans["user_names"] = true;
    const Outcome on = f.run();
    REQUIRE(on.status == OMS_OK);
    CHECK(on.rules == concat(passes(spec_names, "spec allowlist"), passes(user_names, user_names_origin)));
}

TEST_CASE("env-allowlist: deny removes USER or LOGNAME like any built-in name") {
    Fixture f;
    f.host.string_arrays["deny"] = {"LOGNAME"};
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(passes(spec_names, "spec allowlist"), passes({"USER"}, user_names_origin)));
}

TEST_CASE("env-allowlist adds configured extras once, after the spec's names") {
    Fixture f;
    f.host.string_arrays["extra"] = {"RUST_LOG", "PATH", "NO_COLOR", "RUST_LOG", "USER"};
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(passes(spec_names, "spec allowlist"), passes(user_names, user_names_origin),
                              passes({"RUST_LOG", "NO_COLOR"}, "extra (config)")));
}

TEST_CASE("env-allowlist never passes AWS_* or API keys from extra, and warns for each") {
    Fixture f;
    f.host.string_arrays["extra"] = {"AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "RUST_LOG",
                                     "AWS_REGION", "DB_PASSWORD"};
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    // Positive control: the harmless extra does pass, so the refusals are not a broken `extra`.
    CHECK(out.rules == concat(passes(spec_names, "spec allowlist"), passes(user_names, user_names_origin),
                              passes({"RUST_LOG"}, "extra (config)")));
    for (const char* secret : {"AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_REGION", "DB_PASSWORD"})
        for (const auto& r : out.raw) CHECK(r.value != secret);
    REQUIRE(f.host.logs.size() == 5);
    CHECK(f.host.logs[0].first == OMS_LOG_WARN);
    CHECK(f.host.logs[0].second ==
          "[plugin.env-allowlist] extra: 'AWS_SECRET_ACCESS_KEY' looks like a credential and never reaches "
          "commands; ignored");
    CHECK(f.host.logs[1].second.find("'OPENAI_API_KEY'") != std::string::npos);
    CHECK(f.host.logs[2].second.find("'GITHUB_TOKEN'") != std::string::npos);
}

TEST_CASE("env-allowlist deny removes spec names and extras") {
    Fixture f;
    f.host.string_arrays["extra"] = {"RUST_LOG", "NO_COLOR"};
    f.host.string_arrays["deny"] = {"TERM", "SOLANA_RPC_URL", "NO_COLOR", "NOT_IN_THE_LIST"};
    const Outcome out = f.run();
    REQUIRE(out.status == OMS_OK);
    std::vector<std::string> kept = spec_names;
    kept.erase(std::find(kept.begin(), kept.end(), "TERM"));
    kept.erase(std::find(kept.begin(), kept.end(), "SOLANA_RPC_URL"));
    CHECK(out.rules == concat(passes(kept, "spec allowlist"), passes(user_names, user_names_origin),
                              passes({"RUST_LOG"}, "extra (config)")));
}

TEST_CASE("env-allowlist refuses patterns and malformed names with an error naming the key") {
    Fixture f;
    SECTION("a pattern in extra") {
        f.host.string_arrays["extra"] = {"LC_*"};
        const Outcome out = f.run();
        CHECK(out.status == OMS_ERR_INVALID);
        CHECK(out.error ==
              "[plugin.env-allowlist] extra: 'LC_*' is not a variable name (exact names only, no patterns)");
        CHECK(out.rules.empty());
    }
    SECTION("an assignment in deny") {
        f.host.string_arrays["deny"] = {"TERM=xterm"};
        const Outcome out = f.run();
        CHECK(out.status == OMS_ERR_INVALID);
        CHECK(out.error ==
              "[plugin.env-allowlist] deny: 'TERM=xterm' is not a variable name (exact names only, no patterns)");
    }
}

TEST_CASE("never_passes catches credential names and spares ordinary ones") {
    using oms::policies::never_passes;
    for (const char* secret :
         {"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_PROFILE", "aws_region", "OPENAI_API_KEY",
          "ANTHROPIC_API_KEY", "GOOGLE_APIKEY", "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "HF_TOKEN", "TOKEN",
          "SLACK_TOKEN_FILE", "CLIENT_SECRET", "MYSECRET", "JWT_SECRET_KEY", "DB_PASSWORD", "PGPASSWORD",
          "SMTP_PASSWD", "S3_ACCESS_KEY", "STRIPE_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "SSH_PRIVATE_KEY"}) {
        INFO(secret);
        CHECK(never_passes(secret));
    }
    for (const char* ordinary : {"PATH", "RUST_LOG", "TOKENIZERS_PARALLELISM", "KEYBOARD_LAYOUT", "EDITOR",
                                 "MONKEY", "SURFNET_RPC_URL", "SSH_AUTH_SOCK_DIR_COUNT"}) {
        INFO(ordinary);
        CHECK_FALSE(never_passes(ordinary));
    }
    for (std::string_view name : oms::policies::spec_allowlist()) CHECK_FALSE(never_passes(name));
}

TEST_CASE("the built oms-env-allowlist.so exports the same plugin") {
    LoadedPlugin plugin(OMS_PLUGIN_FILE);
    CHECK(std::string(plugin.descriptor().id) == "env-allowlist");
    CHECK(std::string(plugin.descriptor().kind) == OMS_KIND_POLICY);
    // user_names is not narrowing: a worktree's config may not set it (either way).
    CHECK(plugin.key_summary() == std::vector<std::string>{"extra", "deny (narrows)", "user_names"});
    Fixture f;
    f.host.string_arrays["extra"] = {"GITHUB_TOKEN", "RUST_LOG"};
    const Outcome out = plugin.contribute(f.host, f.context);
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(passes(spec_names, "spec allowlist"), passes(user_names, user_names_origin),
                              passes({"RUST_LOG"}, "extra (config)")));
}
