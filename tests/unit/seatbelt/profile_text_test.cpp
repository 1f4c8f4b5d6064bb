// The rendered profile as text: structure, the spec's rule order, how hostile
// paths are carried, and what the renderer refuses.
#include "evaluated_profile.hpp"
#include "launcher.hpp"
#include "sbpl_quote.hpp"
#include "sexpr_reader.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

using namespace oms::test;
using namespace oms::test::seatbelt;
using oms::seatbelt::Profile;

namespace {

// The top-level forms of a profile, each printed back as "action op... | filters".
std::vector<sbpl::Node> forms_of(const Profile& profile) { return sbpl::read_forms(profile.text); }

std::string head_of(const sbpl::Node& form) {
    std::string out;
    for (const auto& item : form.items) {
        if (item.type != sbpl::Node::Type::symbol) break;
        out += (out.empty() ? "" : " ") + item.text;
    }
    return out;
}

std::vector<std::string> heads(const Profile& profile) {
    std::vector<std::string> out;
    for (const auto& form : forms_of(profile)) out.push_back(head_of(form));
    return out;
}

Profile full_profile(const std::string& home = "/Users/ann") {
    auto policy = mirror_policy(layout_under(home, true));
    return render(policy);
}

std::vector<std::string> values(const Profile& profile) {
    std::vector<std::string> out;
    for (const auto& p : profile.parameters) out.push_back(p.value);
    return out;
}

bool has_value(const Profile& profile, const std::string& value) {
    const auto all = values(profile);
    return std::find(all.begin(), all.end(), value) != all.end();
}

oms_status status_of_rendering(PolicyBuilder& policy) {
    try {
        render(policy);
        return OMS_OK;
    } catch (const oms::sdk::Error& e) {
        return e.status();
    }
}

}  // namespace

TEST_CASE("the profile follows the spec's order", "[seatbelt][text]") {
    const std::vector<std::string> expected{
        "version 1",
        "allow default",                          // base
        "deny file-read*",                        // under HOME
        "allow file-read*",                       // worktree and toolchain roots
        "allow file-read-metadata",               // folders on the way to those roots
        "deny file-read*",                        // secrets again
        "deny mach-lookup",                       // keychain
        "deny file-write*",                       // all writes
        "allow file-write*",                      // write roots
        "deny file-write*",                       // .git and pinned files
        "deny file-write*",                       // every path through a nested .git
        "deny file-write-unlink",                 // moves of denied paths and parents
        "deny network*",                          // all network
        "allow network-outbound",                 // loopback ports
        "allow network-bind network-inbound",     // Surfpool listening
        "deny appleevent-send",
        "deny lsopen",
    };
    CHECK(heads(full_profile()) == expected);
}

TEST_CASE("the base rules are exact", "[seatbelt][text]") {
    const Profile profile = full_profile();
    CHECK(profile.text.rfind("(version 1)\n", 0) == 0);
    for (const char* line : {"(allow default)\n", "(deny file-write*)\n", "(deny network*)\n", "(deny appleevent-send)\n",
                             "(deny lsopen)\n"})
        CHECK(profile.text.find(line) != std::string::npos);
}

TEST_CASE("network rules use remote ip for connections and never local ip outbound", "[seatbelt][text]") {
    const Profile profile = full_profile();
    for (const char* port : {"8899", "8900", "9900"}) {
        CHECK(profile.text.find(std::string("(remote ip \"localhost:") + port + "\")") != std::string::npos);
        CHECK(profile.text.find(std::string("(local ip \"localhost:") + port + "\")") != std::string::npos);
    }
    for (const auto& form : forms_of(profile)) {
        if (head_of(form).find("network-outbound") == std::string::npos) continue;
        for (size_t i = 1; i < form.items.size(); ++i)
            CHECK_FALSE((form.items[i].type == sbpl::Node::Type::list && form.items[i].items[0].is_symbol("local")));
    }
    // Without Surfpool: no listening rule at all.
    auto policy = mirror_policy(layout_under("/Users/ann", false));
    const Profile plain = render(policy);
    CHECK(plain.text.find("network-bind") == std::string::npos);
    CHECK(plain.text.find("localhost:8900") == std::string::npos);
}

TEST_CASE("a listening rule with a port number listens on that port only", "[seatbelt][text]") {
    PolicyBuilder policy;
    policy.add(OMS_RULE_NET_CONNECT_LOOPBACK, "", 8899).add(OMS_RULE_NET_LISTEN_LOOPBACK, "/opt/surfpool", 8900);
    const Profile profile = render(policy);
    CHECK(profile.text.find("(local ip \"localhost:8900\")") != std::string::npos);
    CHECK(profile.text.find("(local ip \"localhost:8899\")") == std::string::npos);
    REQUIRE(profile.limits.size() == 1);
    CHECK(profile.limits[0].find("every process") != std::string::npos);
}

TEST_CASE("no value ever appears in the profile text", "[seatbelt][text]") {
    const std::string home = "/Users/Ann \"Q\" \\ [x] ü .*+ ;(\n)";
    const Profile profile = full_profile(home);
    CHECK(profile.text.find("/Users") == std::string::npos);
    CHECK(profile.text.find("com.apple.securityd") == std::string::npos);
    // The text is plain ASCII: every non-ASCII or control byte lives in a parameter.
    for (unsigned char c : profile.text) CHECK(((c >= 0x20 && c < 0x7f) || c == '\n'));
    const std::regex name("[A-Z][A-Z_]*_[0-9]+");
    for (const auto& p : profile.parameters) CHECK(std::regex_match(p.name, name));
    CHECK(has_value(profile, home));
    CHECK(has_value(profile, home + "/.ssh"));
    CHECK(has_value(profile, home + "/work/repo/.git"));
}

TEST_CASE("each hostile path is carried byte for byte and still means that path", "[seatbelt][text]") {
    const std::vector<std::string> hostile{
        "/Users/a b/with space",   "/Users/a/\"quoted\"",  "/Users/a/back\\slash", "/Users/a/[brackets]",
        "/Users/a/ünïcødé/日本",   "/Users/a/.*+?^$|(){}", "/Users/a/new\nline",   "/Users/a/semi;colon #\"x\"",
        "/Users/a/tab\there",      "/Users/a/trailing ",
    };
    for (const auto& path : hostile) {
        INFO(oms::seatbelt::shell_word(path));
        PolicyBuilder policy;
        policy.add(OMS_RULE_READ_DENY, path).add(OMS_RULE_WRITE_ALLOW_TREE, path);
        const Profile profile = render(policy);
        CHECK(has_value(profile, path));
        const auto evaluator = evaluate(profile);
        CHECK(evaluator.decide({"file-read-data", path}) == sbpl::Decision::deny);
        CHECK(evaluator.decide({"file-read-data", path + "/inner"}) == sbpl::Decision::deny);
        // Positive control: a neighbour differing by its last byte is untouched.
        CHECK(evaluator.decide({"file-read-data", path.substr(0, path.size() - 1) + "_"}) == sbpl::Decision::allow);
        CHECK(evaluator.decide({"file-write-data", path + "/f"}) == sbpl::Decision::allow);
        CHECK(evaluator.decide({"file-write-data", path + "x/f"}) == sbpl::Decision::deny);
    }
}

TEST_CASE("suffix patterns are escaped regexes anchored at the end, ASCII letters in either case",
          "[seatbelt][text]") {
    CHECK(oms::seatbelt::suffix_regex("-keypair.json") == "-[kK][eE][yY][pP][aA][iI][rR]\\.[jJ][sS][oO][nN]$");
    CHECK(oms::seatbelt::suffix_regex("/id.json") == "/[iI][dD]\\.[jJ][sS][oO][nN]$");
    CHECK(oms::seatbelt::regex_literal("a.b*c+d?e^f$g|h(i)j[k]l{m}n\\o") ==
          "a\\.b\\*c\\+d\\?e\\^f\\$g\\|h\\(i\\)j\\[k]l\\{m}n\\\\o");
    PolicyBuilder policy;
    policy.add(OMS_RULE_READ_DENY_SUFFIX, "(x)[y].*");
    const auto evaluator = evaluate(render(policy));
    CHECK(evaluator.decide({"file-read-data", "/a/b(x)[y].*"}) == sbpl::Decision::deny);
    CHECK(evaluator.decide({"file-read-data", "/a/bx y..."}) == sbpl::Decision::allow);
}

TEST_CASE("trailing slashes do not change a rule's meaning", "[seatbelt][text]") {
    PolicyBuilder policy;
    policy.add(OMS_RULE_READ_DENY, "/Users/a/.ssh/");
    const Profile profile = render(policy);
    CHECK(has_value(profile, "/Users/a/.ssh"));
    CHECK(evaluate(profile).decide({"file-read-data", "/Users/a/.ssh"}) == sbpl::Decision::deny);
}

TEST_CASE("the renderer refuses rules it cannot express exactly", "[seatbelt][text]") {
    auto with = [](oms_rule_kind kind, std::string value, int64_t number = 0) {
        PolicyBuilder policy;
        policy.add(kind, std::move(value), number);
        return policy;
    };
    auto relative = with(OMS_RULE_READ_DENY, "relative/path");
    CHECK(status_of_rendering(relative) == OMS_ERR_INVALID);
    auto empty = with(OMS_RULE_WRITE_ALLOW_TREE, "");
    CHECK(status_of_rendering(empty) == OMS_ERR_INVALID);
    auto nul = with(OMS_RULE_READ_DENY, std::string("/a\0b", 4));
    CHECK(status_of_rendering(nul) == OMS_ERR_INVALID);
    auto port0 = with(OMS_RULE_NET_CONNECT_LOOPBACK, "", 0);
    CHECK(status_of_rendering(port0) == OMS_ERR_INVALID);
    auto port_big = with(OMS_RULE_NET_CONNECT_LOOPBACK, "", 70000);
    CHECK(status_of_rendering(port_big) == OMS_ERR_INVALID);
    auto empty_suffix = with(OMS_RULE_READ_DENY_SUFFIX, "");
    CHECK(status_of_rendering(empty_suffix) == OMS_ERR_INVALID);
    for (const char* bad_name : {"", "a/b", "/.git", ".", ".."}) {
        auto bad = with(OMS_RULE_WRITE_DENY_NAME, bad_name);
        CHECK(status_of_rendering(bad) == OMS_ERR_INVALID);
    }
    auto relative_scratch = with(OMS_RULE_WRITE_SCRATCH_TREE, "cargo/src");
    CHECK(status_of_rendering(relative_scratch) == OMS_ERR_INVALID);
    auto unknown = with(static_cast<oms_rule_kind>(99), "/x");
    CHECK(status_of_rendering(unknown) == OMS_ERR_UNSUPPORTED);
    // Positive control: the same kinds with good values render.
    auto good = with(OMS_RULE_READ_DENY, "/a/b");
    CHECK(status_of_rendering(good) == OMS_OK);
    auto good_name = with(OMS_RULE_WRITE_DENY_NAME, ".git");
    CHECK(status_of_rendering(good_name) == OMS_OK);
    auto good_scratch = with(OMS_RULE_WRITE_SCRATCH_TREE, "/a/cargo/src");
    CHECK(status_of_rendering(good_scratch) == OMS_OK);
}

TEST_CASE("a scratch tree stays read-only, said in the profile and in the limits", "[seatbelt][text]") {
    PolicyBuilder policy;
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, "/Users/a/.cargo/registry");
    policy.add(OMS_RULE_WRITE_SCRATCH_TREE, "/Users/a/.cargo/registry/src");
    const Profile profile = render(policy);
    const auto evaluator = evaluate(profile);
    CHECK(evaluator.decide({"file-write-create", "/Users/a/.cargo/registry/src/x/build.rs"}) == sbpl::Decision::deny);
    CHECK(evaluator.decide({"file-write-data", "/Users/a/.cargo/registry/src"}) == sbpl::Decision::deny);
    // positive control: the rest of the write root is written
    CHECK(evaluator.decide({"file-write-create", "/Users/a/.cargo/registry/cache/x.crate"}) == sbpl::Decision::allow);
    CHECK(profile.text.find("no per-run layer") != std::string::npos);
    CHECK(profile.text.find("/Users/a") == std::string::npos);  // the path travels as a parameter only
    REQUIRE(profile.limits.size() == 1);
    CHECK(profile.limits[0].find("scratch trees are read-only") != std::string::npos);
}

TEST_CASE("a protected name is an escaped regex on one whole path component", "[seatbelt][text]") {
    PolicyBuilder policy;
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, "/w");
    policy.add(OMS_RULE_WRITE_DENY_NAME, "a.b");
    const Profile profile = render(policy);
    CHECK(has_value(profile, "/a\\.b$"));
    CHECK(has_value(profile, "/a\\.b/"));
    const auto evaluator = evaluate(profile);
    CHECK(evaluator.decide({"file-write-data", "/w/a.b"}) == sbpl::Decision::deny);
    CHECK(evaluator.decide({"file-write-data", "/w/x/a.b/y"}) == sbpl::Decision::deny);
    CHECK(evaluator.decide({"file-write-data", "/w/axb"}) == sbpl::Decision::allow);
    CHECK(evaluator.decide({"file-write-data", "/w/za.b"}) == sbpl::Decision::allow);
    CHECK(evaluator.decide({"file-write-data", "/w/a.bz/y"}) == sbpl::Decision::allow);
}

TEST_CASE("environment rules stay out of the profile", "[seatbelt][text]") {
    PolicyBuilder policy;
    policy.add(OMS_RULE_ENV_PASS, "PATH");
    const Profile profile = render(policy);
    CHECK(profile.parameters.empty());
    CHECK(profile.text.find("PATH") == std::string::npos);
}

TEST_CASE("sandbox-exec's argument vector", "[seatbelt][text]") {
    const std::vector<oms::seatbelt::ProfileParameter> parameters{{"A_0", "/x y", ""}, {"B_0", "a=b", ""}};
    const auto argv = oms::seatbelt::sandbox_exec_argv("/usr/bin/sandbox-exec", "/t/p.sb", parameters, {"ls", "-la"});
    const std::vector<std::string> expected{"/usr/bin/sandbox-exec", "-D", "A_0=/x y", "-D", "B_0=a=b",
                                            "-f", "/t/p.sb", "ls", "-la"};
    CHECK(argv == expected);
}

TEST_CASE("shell words read back as the same bytes", "[seatbelt][text]") {
    CHECK(oms::seatbelt::shell_word("a b") == "'a b'");
    CHECK(oms::seatbelt::shell_word("it's") == "'it'\\''s'");
    CHECK(oms::seatbelt::shell_word("a\nb'c\\") == "$'a\\nb\\'c\\\\'");
}

TEST_CASE("a corrupted profile fails evaluation", "[seatbelt][text]") {
    // Guards the guard: if a rendering bug dropped a parenthesis or a
    // parameter, the meaning tests would fail rather than pass vacuously.
    Profile profile = full_profile();
    Profile truncated = profile;
    truncated.text.pop_back();  // the newline
    truncated.text.pop_back();  // the last ')'
    CHECK_THROWS_AS(evaluate(truncated), sbpl::ParseError);
    Profile missing = profile;
    missing.parameters.pop_back();
    CHECK_THROWS_AS(evaluate(missing), sbpl::ParseError);
    CHECK_NOTHROW(evaluate(profile));
}
