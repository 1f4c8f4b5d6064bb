// Reads: secrets under HOME and keypair files inside allowed roots never come
// out; other folders under HOME are closed; the worktree, toolchain roots and
// everything outside HOME stay readable (the positive controls).
#include "test_support.hpp"

#include <unistd.h>

using namespace oms::test;

TEST_CASE("planted secrets do not come out while the worktree does", "[landlock][reads]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            cat {home}/.ssh/id_rsa; cat {home}/.aws/credentials; cat {home}/.config/solana/id.json
            cat {home}/.netrc; cat {work}/wallet-keypair.json; cat {work}/nested/deeper/id.json
            echo; cat {work}/README; echo; cat {home}/.cargo/bin/tool-marker; echo
            echo "listing:$(ls -A {home}/.ssh | wc -l)"
            exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        for (const char* secret : {kSshKey, kAwsKey, kSolanaId, kKeypair, "NETRC-PW"})
            CHECK(r.out.find(secret) == std::string::npos);
        CHECK(r.out.find("WORKTREE-README") != std::string::npos);  // positive: worktree
        CHECK(r.out.find("TOOLCHAIN-OK") != std::string::npos);     // positive: toolchain root
        CHECK(r.out.find("listing:0") != std::string::npos);        // the folder is an empty one
        // The files are still there, untouched, for the user.
        CHECK(read_file(w.home + "/.ssh/id_rsa") == kSshKey);
        CHECK(read_file(w.work + "/wallet-keypair.json") == kKeypair);
    }
}

TEST_CASE("other folders under HOME are absent, outside HOME is open", "[landlock][reads]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            cat {other}/main.rs; echo "home:$(ls -A {home} | tr '\n' ' ')"
            cat /etc/passwd | head -n 1; cat {work}/README; echo; exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_file(w.other_repo + "/main.rs") == kOtherRepo);  // readable without the sandbox
        CHECK(r.out.find(kOtherRepo) == std::string::npos);
        CHECK(r.err.find("main.rs: No such file or directory") != std::string::npos);  // absent, not just closed
        CHECK(r.out.find("home:.cargo \n") != std::string::npos);  // HOME lists only its granted root
        CHECK(r.out.find("root:") != std::string::npos);  // positive: /etc is outside HOME
        CHECK(r.out.find("WORKTREE-README") != std::string::npos);
    }
}

TEST_CASE("a write root that holds HOME does not reopen reads under HOME", "[landlock][reads]") {
    require_landlock();
    World w;
    FakeHost host;
    LandlockPlugin plugin(host);
    // The world's root holds HOME, the worktree and the private HOME.
    PolicyBuilder policy = default_policy(w);
    policy.add(OMS_RULE_WRITE_ALLOW_TREE, w.root.path());
    ContextBuilder context = default_context(
        w, {"sh", "-c",
            "cat " + w.other_repo + "/main.rs; ls -A " + w.home + " && echo LISTED-HOME; ls / && echo LISTED-ROOT; cat " +
                w.work + "/README; echo; exit 0"});
    int out[2];
    REQUIRE(pipe(out) == 0);
    ErrorBuffer error;
    void* run = nullptr;
    REQUIRE(plugin.api().spawn(plugin.instance(), context.build(), policy.build(), oms_stdio{0, out[1], 2}, &run,
                               error.get()) == OMS_OK);
    close(out[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    close(out[0]);
    int32_t code = -1;
    plugin.api().wait(plugin.instance(), run, &code, error.get());
    plugin.api().release(plugin.instance(), run);
    INFO(text);
    CHECK(code == 0);
    CHECK(text.find(kOtherRepo) == std::string::npos);
    // HOME must stay as writable as the policy says, so it gets no skeleton,
    // and then neither HOME nor `/` may be listed (read_dir is inherited).
    CHECK(text.find("LISTED-HOME") == std::string::npos);
    CHECK(text.find("LISTED-ROOT") == std::string::npos);
    CHECK(text.find("WORKTREE-README") != std::string::npos);
}
