// Tools the user installed under HOME, run through the real `oms run` under
// landlock: pip's user site, npm's prefix from ~/.npmrc, pipx, Go and gem
// folders, and PATH programs that link to an install under HOME. Each test
// runs the tool (the positive control) and checks that what must stay
// closed beside it does: the other files of HOME, ~/.npmrc, ~/.gem's
// credentials, keypair files inside the lent folders, links into ~/.ssh and
// links in a folder the command can write; and npm's cache for `npx
// --offline`, whose writes stay in the run.
#include "npm_test_registry.hpp"
#include "test_support.hpp"
#include "text_count.hpp"
#include "toolchain_runs.hpp"

#include <filesystem>
#include <memory>

using namespace oms::test;
namespace fs = std::filesystem;

namespace {

const char* const kHomeNotes = "HOME-NOTES-5b2e";     // a file of HOME outside every lent folder
const char* const kNpmToken = "NPM-TOKEN-9c41";       // in ~/.npmrc beside prefix=
const char* const kGemKey = "GEM-API-KEY-03fd";       // ~/.gem/credentials
const char* const kLentKeypair = "LENT-KEYPAIR-e6a7";  // a keypair file inside a lent folder

void write_program(const std::string& path, const std::string& script) {
    write_file(path, script);
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
}

void link(const std::string& target, const std::string& at) {
    make_dirs(fs::path(at).parent_path());
    fs::create_symlink(target, at);
}

// "3.11": the version of /usr/bin/python3, whose user site the test fills.
std::string system_python_version() {
    ProcessResult version = run_process(
        {"/usr/bin/python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2], end='')"});
    REQUIRE(version.exit_code == 0);
    return version.out;
}

// Every file below `folder` with its size, as one text: equal before and
// after a run when the run changed nothing there.
std::string listing(const std::string& folder) {
    std::string out;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        out += entry.path().string();
        if (entry.is_regular_file()) out += " " + std::to_string(entry.file_size());
        out += "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("a pip --user tool under HOME runs from its user site; a keypair in the user site stays hidden",
          "[landlock][home-tools]") {
    require_landlock();
    World w;
    write_file(w.home + "/notes.txt", kHomeNotes);
    const std::string site = w.home + "/.local/lib/python" + system_python_version() + "/site-packages";
    write_file(site + "/homemod/__init__.py", "VALUE = 'PIP-USER-TOOL-OK'\n");
    write_file(site + "/deploy-keypair.json", kLentKeypair);
    write_file(w.home + "/.local/share/keyrings/login.keyring", "KEYRING-c8d2");  // ~/.local is not lent whole
    // What `pip install --user` writes: a script in ~/.local/bin importing from the user site.
    write_program(w.home + "/.local/bin/homemod-tool", "#!/usr/bin/python3\nimport homemod\nprint(homemod.VALUE)\n");

    ProcessResult run = run_toolchain_command(
        w, {w.home + "/.local/bin:/usr/bin:/bin", {},
            "homemod-tool; cat " + site + "/deploy-keypair.json {home}/notes.txt "
            "{home}/.local/share/keyrings/login.keyring; exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("PIP-USER-TOOL-OK") != std::string::npos);
    CHECK(run.out.find(kLentKeypair) == std::string::npos);
    CHECK(run.out.find(kHomeNotes) == std::string::npos);
    CHECK(run.out.find("KEYRING-c8d2") == std::string::npos);
}

TEST_CASE("an npm prefix tool from ~/.npmrc's prefix= runs; ~/.npmrc itself stays unreadable",
          "[landlock][home-tools]") {
    require_landlock();
    World w;
    write_file(w.home + "/.npmrc", std::string("prefix=~/.npm-global\n//registry.npmjs.org/:_authToken=") + kNpmToken +
                                       "\n");
    const std::string modules = w.home + "/.npm-global/lib/node_modules";
    // The tool reads a sibling package: only the prefix's node_modules folder, lent whole, holds both.
    write_file(modules + "/greeting/index.txt", "NPM-PREFIX-TOOL-OK");
    write_program(modules + "/hello/bin/hello.sh", "#!/bin/sh\ncat " + modules + "/greeting/index.txt\n");
    write_file(modules + "/hello/ci-keypair.json", kLentKeypair);
    link("../lib/node_modules/hello/bin/hello.sh", w.home + "/.npm-global/bin/hello");  // as npm links it

    ProcessResult run = run_toolchain_command(
        w, {w.home + "/.npm-global/bin:/usr/bin:/bin", {},
            "hello; echo; cat {home}/.npmrc " + modules + "/hello/ci-keypair.json; exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("NPM-PREFIX-TOOL-OK") != std::string::npos);
    CHECK(run.out.find(kNpmToken) == std::string::npos);
    CHECK(run.out.find(kLentKeypair) == std::string::npos);
}

TEST_CASE("pipx, Go and gem user installs are readable, also through the private HOME; ~/go/src and gem "
          "credentials are not",
          "[landlock][home-tools]") {
    require_landlock();
    World w;
    write_file(w.home + "/.local/share/pipx/venvs/black/lib/marker.txt", "PIPX-OK");
    write_file(w.home + "/go/pkg/mod/example.com/m@v1.0.0/marker.txt", "GOMOD-OK");
    write_file(w.home + "/go/src/private-repo/notes.txt", "GO-SRC-PRIVATE-71aa");
    write_file(w.home + "/.gem/ruby/3.1.0/gems/rake/marker.txt", "GEM-OK");
    write_file(w.home + "/.gem/credentials", kGemKey);

    ProcessResult run = run_toolchain_command(
        w, {"/usr/bin:/bin", {},
            "cat {home}/.local/share/pipx/venvs/black/lib/marker.txt; echo; "
            "cat \"$HOME/go/pkg/mod/example.com/m@v1.0.0/marker.txt\"; echo; "
            "cat \"$HOME/.gem/ruby/3.1.0/gems/rake/marker.txt\"; echo; "
            "cat {home}/go/src/private-repo/notes.txt {home}/.gem/credentials; exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("PIPX-OK") != std::string::npos);
    CHECK(run.out.find("GOMOD-OK") != std::string::npos);  // through the private HOME's link
    CHECK(run.out.find("GEM-OK") != std::string::npos);
    CHECK(run.out.find("GO-SRC-PRIVATE-71aa") == std::string::npos);
    CHECK(run.out.find(kGemKey) == std::string::npos);
}

TEST_CASE("a PATH program linking to an install under HOME runs; links into ~/.ssh or from a worktree folder "
          "are not followed; a folder named twice on PATH is looked at once",
          "[landlock][home-tools]") {
    require_landlock();
    World w;
    write_file(w.home + "/notes.txt", kHomeNotes);
    const std::string install = w.home + "/opt/mytool";
    write_file(install + "/share/data.txt", "LINKED-TOOL-OK");
    write_program(install + "/bin/mytool", "#!/bin/sh\ncat " + install + "/share/data.txt\n");
    link(install + "/bin/mytool", w.home + "/bin/mytool");
    link(install + "/bin/mytool", w.home + "/bin/mytool-alias");  // a second program of the same install
    link(w.home + "/.ssh/id_rsa", w.home + "/bin/sshtool");
    // A command may have made this one: the install it names must stay closed.
    write_file(w.home + "/opt/other/share/data.txt", "WORKTREE-LINKED-INSTALL-4e19");
    write_program(w.home + "/opt/other/bin/other", "#!/bin/sh\necho OTHER\n");
    link(w.home + "/opt/other/bin/other", w.work + "/bin/other");

    ProcessResult run = run_toolchain_command(
        w, {w.home + "/bin:" + w.work + "/bin:" + w.home + "/bin:/usr/bin:/bin", {},
            "mytool; echo; mytool-alias; echo; cat {home}/bin/sshtool {home}/opt/other/share/data.txt {home}/notes.txt; "
            "exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(count_of(run.out, "LINKED-TOOL-OK") == 2);
    CHECK(run.out.find(kSshKey) == std::string::npos);
    CHECK(run.out.find("WORKTREE-LINKED-INSTALL-4e19") == std::string::npos);
    CHECK(run.out.find(kHomeNotes) == std::string::npos);
    CHECK(count_of(run.err, "install of the PATH program " + w.home + "/bin/sshtool") == 1);
}

TEST_CASE("a tool of HOME that no detection lends fails with one line naming it and the key that lends it",
          "[landlock][home-tools]") {
    require_landlock();
    World w;
    write_file(w.home + "/notes.txt", kHomeNotes);
    const std::string scripts = fs::canonical(w.home).string() + "/scripts";
    write_program(scripts + "/deploy.sh", "#!/bin/sh\necho DEPLOY-SCRIPT-RAN\ncat " + w.home + "/notes.txt\n");
    const auto run_script = [&] {
        return run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work, "--", scripts + "/deploy.sh"},
                           {environment_with({{"HOME", w.home},
                                              {"XDG_CONFIG_HOME", w.root / "xdg-config"},
                                              {"XDG_STATE_HOME", w.root / "xdg-state"},
                                              {"PATH", "/usr/bin:/bin"}}),
                            std::nullopt, w.work, 60});
    };
    ProcessResult hidden = run_script();
    INFO(hidden.out << hidden.err);
    CHECK(hidden.exit_code != 0);
    CHECK(hidden.out.find("DEPLOY-SCRIPT-RAN") == std::string::npos);
    CHECK(hidden.err.find(scripts + "/deploy.sh lies under HOME outside the folders lent to commands; "
                          "[plugin.toolchain-roots] extra = [\"" + scripts + "\"] (or --ro " + scripts + ") lends " +
                          scripts + " read-only") != std::string::npos);

    // The key the line names lends the folder; the rest of HOME stays closed.
    add_user_config(w, "[plugin.toolchain-roots]\nextra = [\"" + scripts + "\"]\n");
    ProcessResult lent = run_script();
    INFO(lent.out << lent.err);
    CHECK(lent.out.find("DEPLOY-SCRIPT-RAN") != std::string::npos);
    CHECK(lent.out.find(kHomeNotes) == std::string::npos);
    CHECK(lent.err.find("outside the folders lent") == std::string::npos);
}

TEST_CASE("npx --offline runs a tool from the user's npm cache; the run's writes to the cache never reach it",
          "[landlock][home-tools][npm]") {
    require_landlock();
    World w;
    INFO("npm, npx, tar and sha1sum are needed on PATH (the measured tools of this test)");
    REQUIRE(run_process({"/bin/sh", "-c", "command -v npx && command -v tar && command -v sha1sum"}).exit_code == 0);
    write_file(w.home + "/notes.txt", kHomeNotes);
    // The user ran the tool once on the host: npm keeps it in ~/.npm.
    auto registry = std::make_unique<NpmTestRegistry>(w.root / "npm", "127.0.0.1");
    const std::string url = registry->base() + "/";
    const ProcessResult host = run_process({"/usr/bin/env", "npx", "--yes", "--registry", url, "tiny-pkg"},
                                           {environment_with({{"HOME", w.home}, {"npm_config_update_notifier", "false"}}),
                                            std::nullopt, w.root / "npm", 120});
    INFO(host.out << host.err);
    REQUIRE(host.out.find("TINY-PKG-LOADED") != std::string::npos);
    registry.reset();  // from here on the tool can only come from the cache
    const std::string cache = w.home + "/.npm/_cacache", npx = w.home + "/.npm/_npx";
    const std::string before = listing(cache) + listing(npx);

    // What a command leaves in the run's layer, and tries to destroy there.
    ProcessResult run = run_toolchain_command(
        w, {"/usr/bin:/bin", {},
            "npx --offline --registry " + url + " tiny-pkg; echo npx=$?; cat {home}/notes.txt; "
            "echo planted > \"$HOME/.npm/_cacache/planted\" && echo wrote-cache; "
            "rm -rf \"$HOME\"/.npm/_npx/* {home}/.npm/_cacache/index-v5 && echo removed; exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(lines_starting(run.out, "npx=0").size() == 1);
    CHECK(run.out.find("TINY-PKG-LOADED") != std::string::npos);
    CHECK(run.out.find(kHomeNotes) == std::string::npos);  // HOME beside the cache stays closed
    // The writes worked inside (the layer) and changed nothing on the host.
    CHECK(lines_starting(run.out, "wrote-cache").size() == 1);
    CHECK(lines_starting(run.out, "removed").size() == 1);
    CHECK(!fs::exists(cache + "/planted"));
    CHECK(listing(cache) + listing(npx) == before);

    SECTION("the next run finds the cache as the user left it") {
        ProcessResult again = run_toolchain_command(
            w, {"/usr/bin:/bin", {}, "npx --offline --registry " + url + " tiny-pkg; echo npx=$?"});
        INFO(again.out << again.err);
        CHECK(lines_starting(again.out, "npx=0").size() == 1);
        CHECK(again.out.find("TINY-PKG-LOADED") != std::string::npos);
    }
}

TEST_CASE("a keypair in npm's cache is hidden when a worktree link leads there (it would be written through it)",
          "[landlock][home-tools][npm]") {
    require_landlock();
    World w;
    // The cache is not searched at run start (only npm writes it), unless a
    // link a command could have made leads into it: then a keypair a host
    // tool wrote through that link is found and hidden.
    write_file(w.home + "/.npm/_cacache/index-v5/00/entry", "INDEX-ENTRY-OK");
    write_file(w.home + "/.npm/_npx/deploy/prog-keypair.json", kLentKeypair);
    link(w.home + "/.npm/_npx/deploy", w.work + "/target/deploy");
    ProcessResult run = run_toolchain_command(
        w, {"/usr/bin:/bin", {},
            "cat {home}/.npm/_cacache/index-v5/00/entry; echo; cat {home}/.npm/_npx/deploy/prog-keypair.json "
            "{work}/target/deploy/prog-keypair.json; exit 0"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("INDEX-ENTRY-OK") != std::string::npos);  // the cache is readable (the control)
    CHECK(run.out.find(kLentKeypair) == std::string::npos);
}
