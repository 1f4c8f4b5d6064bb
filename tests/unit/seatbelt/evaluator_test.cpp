// The evaluator itself: its semantics on hand-written profiles, and that it
// refuses what it cannot read (so a broken rendered profile fails the tests).
#include "sbpl_evaluator.hpp"

#include <catch2/catch.hpp>

using namespace oms::test::sbpl;

namespace {

Decision decide(const std::string& profile, const std::string& operation, const std::string& target,
                const std::map<std::string, std::string>& parameters = {}) {
    return Evaluator(profile, parameters).decide({operation, target});
}

}  // namespace

TEST_CASE("the last matching rule wins, and the default applies when none matches", "[seatbelt][evaluator]") {
    const std::string profile = R"((version 1)
        (allow default)
        (deny file-read* (subpath "/home/a"))
        (allow file-read* (subpath "/home/a/work"))
        (deny file-read* (literal "/home/a/work/secret")))";
    CHECK(decide(profile, "file-read-data", "/home/a/x") == Decision::deny);
    CHECK(decide(profile, "file-read-data", "/home/a/work/x") == Decision::allow);
    CHECK(decide(profile, "file-read-data", "/home/a/work/secret") == Decision::deny);
    CHECK(decide(profile, "file-read-data", "/home/a/work/secret2") == Decision::allow);
    CHECK(decide(profile, "file-read-data", "/etc/hosts") == Decision::allow);
    CHECK(decide("(version 1)(deny default)", "file-read-data", "/etc/hosts") == Decision::deny);
}

TEST_CASE("path filters follow their documented meaning", "[seatbelt][evaluator]") {
    const std::string subpath = "(version 1)(allow default)(deny file-read* (subpath \"/a/b\"))";
    CHECK(decide(subpath, "file-read-data", "/a/b") == Decision::deny);
    CHECK(decide(subpath, "file-read-data", "/a/b/c") == Decision::deny);
    CHECK(decide(subpath, "file-read-data", "/a/bc") == Decision::allow);
    const std::string prefix = "(version 1)(allow default)(deny file-read* (prefix \"/a/b\"))";
    CHECK(decide(prefix, "file-read-data", "/a/bc") == Decision::deny);
    const std::string literal = "(version 1)(allow default)(deny file-read* (literal \"/a/b\"))";
    CHECK(decide(literal, "file-read-data", "/a/b/c") == Decision::allow);
    const std::string regex = "(version 1)(allow default)(deny file-read* (regex #\"-keypair\\.json$\"))";
    CHECK(decide(regex, "file-read-data", "/x/y-keypair.json") == Decision::deny);
    CHECK(decide(regex, "file-read-data", "/x/y-keypairXjson") == Decision::allow);
}

TEST_CASE("operations with '*' cover their family only", "[seatbelt][evaluator]") {
    const std::string profile = "(version 1)(allow default)(deny file-write*)(deny network*)";
    CHECK(decide(profile, "file-write-unlink", "/x") == Decision::deny);
    CHECK(decide(profile, "file-read-data", "/x") == Decision::allow);
    CHECK(decide(profile, "network-bind", "127.0.0.1:1") == Decision::deny);
    CHECK(decide(profile, "mach-lookup", "com.apple.x") == Decision::allow);
}

TEST_CASE("combinators and several filters in one rule", "[seatbelt][evaluator]") {
    const std::string any = "(version 1)(allow default)(deny file-read* (literal \"/a\") (literal \"/b\"))";
    CHECK(decide(any, "file-read-data", "/b") == Decision::deny);
    const std::string all =
        "(version 1)(allow default)(deny file-read* (require-all (subpath \"/a\") (require-not (literal \"/a/ok\"))))";
    CHECK(decide(all, "file-read-data", "/a/x") == Decision::deny);
    CHECK(decide(all, "file-read-data", "/a/ok") == Decision::allow);
    const std::string either = "(version 1)(allow default)(deny file-read* (require-any (literal \"/a\") (literal \"/c\")))";
    CHECK(decide(either, "file-read-data", "/c") == Decision::deny);
    CHECK(decide(either, "file-read-data", "/b") == Decision::allow);
}

TEST_CASE("parameters are substituted byte for byte", "[seatbelt][evaluator]") {
    const std::string profile = "(version 1)(allow default)(deny file-read* (subpath (param \"P\")))";
    const std::string odd = "/a \"b\"\\c\n(d)";
    CHECK(decide(profile, "file-read-data", odd + "/x", {{"P", odd}}) == Decision::deny);
    CHECK(decide(profile, "file-read-data", "/a \"b\"\\c", {{"P", odd}}) == Decision::allow);
}

TEST_CASE("network filters: remote for connect, local for bind, and the local-ip egress trap", "[seatbelt][evaluator]") {
    const std::string good = "(version 1)(allow default)(deny network*)(allow network-outbound (remote ip \"localhost:8899\"))";
    CHECK(decide(good, "network-outbound", "127.0.0.1:8899") == Decision::allow);
    CHECK(decide(good, "network-outbound", "1.1.1.1:8899") == Decision::deny);
    CHECK(decide(good, "network-bind", "127.0.0.1:8899") == Decision::deny);
    // The mistake the backend must never make: a local-ip outbound rule
    // matches unbound sockets, so it opens every destination.
    const std::string trap = "(version 1)(allow default)(deny network*)(allow network-outbound (local ip \"localhost:*\"))";
    CHECK(decide(trap, "network-outbound", "8.8.8.8:53") == Decision::allow);
    const std::string bind = "(version 1)(allow default)(deny network*)(allow network-bind (local ip \"localhost:*\"))";
    CHECK(decide(bind, "network-bind", "127.0.0.1:5000") == Decision::allow);
    CHECK(decide(bind, "network-bind", "0.0.0.0:5000") == Decision::deny);
}

TEST_CASE("mach-lookup global-name is exact", "[seatbelt][evaluator]") {
    const std::string profile = "(version 1)(allow default)(deny mach-lookup (global-name \"com.apple.securityd\"))";
    CHECK(decide(profile, "mach-lookup", "com.apple.securityd") == Decision::deny);
    CHECK(decide(profile, "mach-lookup", "com.apple.securityd.xpc") == Decision::allow);
}

TEST_CASE("profiles the evaluator cannot read are rejected", "[seatbelt][evaluator]") {
    const std::map<std::string, std::string> p{{"P", "/a"}, {"R", "relative"}};
    const char* broken[] = {
        "",                                                        // empty
        "(allow default)",                                         // no version
        "(version 2)(allow default)",                              // unknown version
        "(version 1)(allow default",                               // unclosed list
        "(version 1)(allow default))",                             // stray ')'
        "(version 1)(allow default)(deny file-reed*)",             // unknown operation
        "(version 1)(allow default)(deny file-read* (subpth \"/a\"))",  // unknown filter
        "(version 1)(allow default)(deny file-read* (subpath (param \"NOPE\")))",  // missing parameter
        "(version 1)(allow default)(deny file-read* (subpath (param \"R\")))",     // relative path
        "(version 1)(allow default)(deny file-read* (subpath \"/a))",              // unterminated string
        "(version 1)(allow default)(deny file-read* (subpath \"/a\\q\"))",         // bad escape
        "(version 1)(allow default)(deny file-read* (regex \"([\"))",              // bad regex
        "(version 1)(allow default)(allow network-outbound (remote ip \"1.2.3.4:80\"))",  // host not allowed
        "(version 1)(allow default)(allow network-outbound (remote ip \"localhost:99999\"))",  // bad port
        "(version 1)(allow default)(frobnicate)",                  // unknown form
        "(version 1)(allow default)(deny (subpath \"/a\"))",       // no operation
        "(version 1)(allow default (subpath \"/a\"))",             // default with a filter
    };
    for (const char* text : broken) {
        INFO(text);
        CHECK_THROWS_AS(Evaluator(text, p), ParseError);
    }
    // Positive control: the same shapes, written correctly, are read.
    CHECK_NOTHROW(Evaluator("(version 1)(allow default)(deny file-read* (subpath (param \"P\")))", p));
    CHECK_NOTHROW(Evaluator("(version 1)(allow default)(allow network-outbound (remote ip \"localhost:8899\"))", p));
}
