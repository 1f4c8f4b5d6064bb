#include "ladder_probes.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <thread>

namespace oms::test {

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A name in the host's /tmp no one else uses.
std::string host_temp_marker() { return "/tmp/oms-ladder-marker-" + std::to_string(getpid()); }

// The enforcement probes of the full mode in one command: the positive
// controls (the worktree read, an existing file there written, a file made
// in a folder of it, the run's TMPDIR) and the refusals (HOME's secrets, a
// keypair at the top and one nested, a write outside the write roots, .git,
// the pinned file, the host's /tmp), and a child left running that must
// not outlive the run.
const char* const kProbes = R"SH(
    cat {home}/.ssh/id_rsa; cat {home}/.aws/credentials; cat {home}/.config/solana/id.json
    cat {work}/wallet-keypair.json; cat {work}/nested/deeper/id.json
    echo pwned > {outside}/file; echo pwned > {outside}/new
    echo pwned >> {work}/.git/config; echo pwned > {pinned}; echo pwned > MARKER
    cat {work}/README && echo appended >> {work}/README && echo WROTE-WORKTREE
    echo made > {work}/src/created.txt && echo MADE-IN-WORKTREE
    echo temp > "$TMPDIR/t" && cat "$TMPDIR/t" && echo WROTE-TMPDIR
    (sleep 2; echo late > {work}/src/late.txt) &
    exit 0)SH";

}  // namespace

std::string probes() {
    std::string script = kProbes;
    script.replace(script.find("MARKER"), 6, host_temp_marker());
    return script;
}

void check_refusals_held(const World& w, const ProcessResult& r) {
    for (const char* secret : {kSshKey, kAwsKey, kSolanaId, kKeypair}) {
        CHECK_FALSE(has(r.out, secret));
        CHECK_FALSE(has(r.err, secret));
    }
    CHECK(read_file(w.outside + "/file") == "OUTSIDE-ORIGINAL");
    CHECK_FALSE(exists(w.outside + "/new"));
    CHECK(read_file(w.work + "/.git/config") == "GIT-CONFIG-ORIGINAL");
    CHECK(read_file(w.pinned) == "PINNED-ORIGINAL");
    CHECK_FALSE(exists(host_temp_marker()));
}


void check_confined_run_worked(const World& w, const ProcessResult& r) {
    CHECK(r.exit_code == 0);
    CHECK(has(r.out, "WORKTREE-README"));
    CHECK(read_file(w.work + "/README") == "WORKTREE-READMEappended\n");
    CHECK(read_file(w.work + "/src/created.txt") == "made\n");
    CHECK(has(r.out, "WROTE-TMPDIR"));
    std::this_thread::sleep_for(std::chrono::seconds(3));
    CHECK_FALSE(exists(w.work + "/src/late.txt"));  // the child left running ended with the run
}

}  // namespace oms::test
