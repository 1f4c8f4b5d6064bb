// A file the keypair suffix rules hide at run start that is not a Solana
// keypair is named once on stderr (not again in later runs), with the key
// that exempts it; it stays hidden until exempted. Real keypairs, FIFOs and
// links get no line, and a FIFO never stalls the run. Through the real `oms run` under landlock.
#include "test_support.hpp"
#include "text_count.hpp"
#include "toolchain_runs.hpp"

#include <sys/stat.h>

#include <filesystem>

using namespace oms::test;
namespace fs = std::filesystem;

namespace {

// What `solana-keygen new` writes: a JSON array of 64 bytes.
std::string solana_keypair_text() {
    std::string text = "[";
    for (int i = 0; i < 64; ++i) text += (i ? "," : "") + std::to_string((i * 37 + 11) % 256);
    return text + "]";
}

std::string notice_for(const std::string& path, const std::string& rule) {
    return "hid " + path + " (matches " + rule +
           " but is not a Solana keypair); to let commands read it, add it to [plugin.secret-deny] keypair_exempt";
}

}  // namespace

TEST_CASE("a hidden file that is not a Solana keypair is named once with the key that exempts it",
          "[landlock][keypair-notice]") {
    require_landlock();
    World w;
    const std::string locale = fs::canonical(w.work).string() + "/locales/id.json";
    write_file(locale, "{\"hello\": \"LOCALE-TEXT-2f80\"}");
    const std::string fixture = fs::canonical(w.work).string() + "/fixtures/test-keypair.json";
    write_file(fixture, "not json at all FIXTURE-TEXT-9a1b");
    const std::string real_key = fs::canonical(w.work).string() + "/deploy-keypair.json";
    write_file(real_key, solana_keypair_text());
    REQUIRE(::mkfifo((w.work + "/pipe-keypair.json").c_str(), 0600) == 0);
    fs::create_symlink(locale, w.work + "/linked-keypair.json");
    // (A link to a readable file under another name stops the run:
    // test_keypair_names.cpp.)

    ProcessResult run = run_toolchain_command(
        w, {"/usr/bin:/bin", {}, "cat locales/id.json fixtures/test-keypair.json deploy-keypair.json; cat README; exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("WORKTREE-README") != std::string::npos);  // positive control: the run works
    // Hidden all the same: named, not opened.
    CHECK(run.out.find("LOCALE-TEXT-2f80") == std::string::npos);
    CHECK(run.out.find("FIXTURE-TEXT-9a1b") == std::string::npos);
    CHECK(run.out.find(solana_keypair_text()) == std::string::npos);
    CHECK(count_of(run.err, notice_for(locale, "*/id.json")) == 1);
    CHECK(count_of(run.err, notice_for(fixture, "*-keypair.json")) == 1);
    // The real keypair, the FIFO and the link (masked at its target, named there) get no line of their own.
    CHECK(run.err.find("hid " + real_key) == std::string::npos);
    CHECK(run.err.find("pipe-keypair.json (matches") == std::string::npos);
    CHECK(run.err.find("linked-keypair.json (matches") == std::string::npos);
    // Two here and the world's own two stand-ins (wallet-keypair.json, nested/deeper/id.json), whose text is no keypair.
    CHECK(count_of(run.err, "is not a Solana keypair") == 4);

    // The key the line names opens the file, and the line is gone (the link,
    // which would hide its target again under its own name, removed first).
    fs::remove(w.work + "/linked-keypair.json");
    add_user_config(w, "[plugin.secret-deny]\nkeypair_exempt = [\"locales/id.json\"]\n");
    ProcessResult exempted = run_toolchain_command(w, {"/usr/bin:/bin", {}, "cat locales/id.json deploy-keypair.json; exit 0"});
    INFO(exempted.out << exempted.err);
    CHECK(exempted.exit_code == 0);
    CHECK(exempted.out.find("LOCALE-TEXT-2f80") != std::string::npos);
    CHECK(exempted.out.find(solana_keypair_text()) == std::string::npos);
    CHECK(exempted.err.find(notice_for(locale, "*/id.json")) == std::string::npos);
    // Named once: the next run does not repeat the fixture's line, though it is still hidden.
    CHECK(exempted.err.find(notice_for(fixture, "*-keypair.json")) == std::string::npos);
    CHECK(exempted.err.find("is not a Solana keypair") == std::string::npos);
}

TEST_CASE("a look-alike keypair is named in one run, not in the next; a new one is", "[landlock][keypair-notice]") {
    require_landlock();
    World w;
    const std::string work = fs::canonical(w.work).string();
    write_file(work + "/locales/id.json", "{\"hello\": \"LOCALE-TEXT-51c3\"}");
    const ToolchainRun show{"/usr/bin:/bin", {}, "cat locales/id.json locales/more/id.json; cat README; exit 0"};
    ProcessResult first = run_toolchain_command(w, show);
    INFO(first.out << first.err);
    CHECK(count_of(first.err, notice_for(work + "/locales/id.json", "*/id.json")) == 1);
    ProcessResult second = run_toolchain_command(w, show);
    INFO(second.out << second.err);
    CHECK(second.out.find("WORKTREE-README") != std::string::npos);  // the run works
    CHECK(second.out.find("LOCALE-TEXT-51c3") == std::string::npos);   // still hidden
    CHECK(second.err.find("is not a Solana keypair") == std::string::npos);
    // Control: a look-alike that appears later is named in the run that first hides it.
    write_file(work + "/locales/more/id.json", "{\"hello\": \"MORE-TEXT-7d02\"}");
    ProcessResult third = run_toolchain_command(w, show);
    INFO(third.out << third.err);
    CHECK(third.out.find("MORE-TEXT-7d02") == std::string::npos);
    CHECK(count_of(third.err, notice_for(work + "/locales/more/id.json", "*/id.json")) == 1);
    CHECK(count_of(third.err, "is not a Solana keypair") == 1);
}

TEST_CASE("many hidden files that are not keypairs give at most eight lines and a count", "[landlock][keypair-notice]") {
    require_landlock();
    World w;
    for (int i = 0; i < 10; ++i) write_file(w.work + "/node_modules/pkg" + std::to_string(i) + "/locales/id.json", "{}");
    ProcessResult run = run_toolchain_command(w, {"/usr/bin:/bin", {}, "cat README; exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("WORKTREE-README") != std::string::npos);
    CHECK(count_of(run.err, "is not a Solana keypair); to let commands read it") == 8);
    // Ten here and the world's two.
    CHECK(count_of(run.err, "hid 4 more files that match the keypair rules but are not Solana keypairs") == 1);
}
