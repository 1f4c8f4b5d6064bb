// Listing is not reading (issue 10, item 2): `ls /` and a glob over `/*`
// work inside, because HOME inside the run is a read-only skeleton holding
// only the granted paths. Names under the real HOME that no rule opens
// (~/.ssh, private notes, another project) are absent from a listing and
// cannot be read; what the policy grants under HOME still reads; nothing a
// command writes into the skeleton reaches the host or the next run.
#include "test_support.hpp"

#include "process.hpp"

#include <dirent.h>
#include <unistd.h>

#include <set>

using namespace oms::test;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The names in a host folder, as the host sees them.
std::set<std::string> host_names(const std::string& folder) {
    std::set<std::string> names;
    DIR* dir = opendir(folder.c_str());
    while (dirent* entry = dir ? readdir(dir) : nullptr) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") names.insert(name);
    }
    if (dir) closedir(dir);
    return names;
}

// A worktree under HOME beside a project the command must not see, and
// private notes next to the planted ~/.ssh.
struct HomeWorld {
    World w;
    std::string project = w.home + "/projects/app";
    std::string secret_project = w.home + "/projects/secret-project";
    HomeWorld() {
        write_file(project + "/README", "APP-README");
        write_file(project + "/.git/config", "APP-GIT-CONFIG");
        write_file(project + "/deploy-keypair.json", kKeypair);
        write_file(secret_project + "/plan.txt", "SECRET-PROJECT-PLAN");
        write_file(w.home + "/private-notes/notes.txt", "PRIVATE-NOTES");
        // A link the user keeps in HOME into a granted root is made again in
        // the skeleton; one into a closed folder is absent like the folder.
        REQUIRE(symlink(".cargo/bin", (w.home + "/tools").c_str()) == 0);
        REQUIRE(symlink(".ssh", (w.home + "/keys").c_str()) == 0);
    }
    ProcessResult run(const std::string& script, const std::vector<std::string>& flags = {}) {
        std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "landlock", "--worktree", project};
        argv.insert(argv.end(), flags.begin(), flags.end());
        for (const std::string& word : {std::string("--"), std::string("sh"), std::string("-c"), expand(w, script)})
            argv.push_back(word);
        return run_process(argv, {oms_world_env(w), std::nullopt, project, 60});
    }
};

}  // namespace

TEST_CASE("ls / and a glob over /* work inside", "[landlock][listing]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            ls / > /dev/null || exit 11
            echo "ls:$(ls / | tr '\n' ' ')"
            echo "glob:" /* END
            echo "parent:$(ls -A "$(dirname {home})" | tr '\n' ' ')"
            exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(has(r.out, "ls:"));
        CHECK(has(r.out, " usr "));
        CHECK(has(r.out, " etc "));
        CHECK((has(r.out, "glob: /bin") || has(r.out, "glob: /boot")));  // expanded, not left as "/*"
        CHECK(has(r.out, " /usr "));
        CHECK(has(r.out, " /etc "));
        CHECK_FALSE(has(r.out, "glob: /*"));
        CHECK(has(r.out, "parent:"));  // the folder holding HOME lists: HOME and its siblings
        CHECK(has(r.out, "home "));
        CHECK(has(r.out, "outside "));
        CHECK(r.err.find("Permission denied") == std::string::npos);
    }
}

TEST_CASE("HOME lists only the granted paths; the names it hides are absent and their files unreadable",
          "[landlock][listing]") {
    require_landlock();
    HomeWorld h;
    const World& w = h.w;
    auto r = h.run(R"SH(
        echo "home:$(ls -A {home} | tr '\n' ' ')"
        echo "projects:$(ls -A {home}/projects | tr '\n' ' ')"
        echo "glob:" {home}/* {home}/.[a-z]* END
        cat {home}/.ssh/id_rsa; cat {home}/private-notes/notes.txt; cat {home}/projects/secret-project/plan.txt
        ls {home}/.ssh; ls {home}/private-notes
        ls {home}/keys/; cat {home}/keys/id_rsa
        echo; cat {home}/.cargo/bin/tool-marker; echo; cat {home}/tools/tool-marker; echo " VIA-LINK"
        cat {home}/projects/app/README; echo
        exit 0)SH");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // On the host, all of them are there.
    const auto on_host = host_names(w.home);
    for (const char* name : {".ssh", "private-notes", "projects", ".cargo", ".aws", ".netrc", "tools", "keys"})
        REQUIRE(on_host.count(name) == 1);
    // Inside, HOME lists the toolchain root, the folder on the way to the
    // worktree and the link into the toolchain root only.
    CHECK(has(r.out, "home:.cargo projects tools \n"));
    CHECK(has(r.out, "projects:app \n"));
    for (const char* hidden : {".ssh", "private-notes", "secret-project", ".aws", ".netrc", ".config", "keys"}) {
        INFO(hidden);
        CHECK_FALSE(has(r.out, std::string("/") + hidden + " "));
        CHECK_FALSE(has(r.out, std::string(" ") + hidden + " "));
        CHECK_FALSE(has(r.out, std::string(":") + hidden + " "));
    }
    for (const char* secret : {kSshKey, "PRIVATE-NOTES", "SECRET-PROJECT-PLAN"}) CHECK_FALSE(has(r.out, secret));
    CHECK(has(r.err, "id_rsa: No such file or directory"));
    CHECK(has(r.err, "notes.txt: No such file or directory"));
    CHECK(has(r.err, "keys/': No such file or directory"));
    // Positive controls: a granted toolchain root and the worktree read as on the host.
    CHECK(has(r.out, "TOOLCHAIN-OK"));
    CHECK(has(r.out, "TOOLCHAIN-OK VIA-LINK"));
    CHECK(has(r.out, "APP-README"));
}

TEST_CASE("nothing written into HOME's skeleton persists; a link left by one run finds nothing in the next",
          "[landlock][listing]") {
    require_landlock();
    HomeWorld h;
    const World& w = h.w;
    const auto home_before = host_names(w.home);
    const auto projects_before = host_names(w.home + "/projects");
    // Run 1: tries to write everywhere in the skeleton, and leaves links in
    // the worktree pointing at what the skeleton hides.
    auto first = h.run(R"SH(
        touch {home}/planted && echo WROTE-FILE
        mkdir {home}/.ssh && echo MADE-SSH
        mkdir {home}/projects/new && echo MADE-PROJECT
        ln -s {home}/.ssh {home}/link && echo MADE-LINK
        echo x > {home}/.cargo/planted && echo WROTE-TOOLCHAIN
        ln -s ../../.ssh {home}/projects/app/ssh-link && ln -s ../secret-project {home}/projects/app/secret-link
        echo OK > {home}/projects/app/written && echo WROTE-WORKTREE
        echo EVIL >> {home}/projects/app/.git/config && echo WROTE-GIT
        echo EVIL > {home}/projects/app/deploy-keypair.json && echo WROTE-KEYPAIR
        cat {home}/projects/app/deploy-keypair.json
        exit 0)SH");
    INFO(first.out << first.err);
    REQUIRE(first.exit_code == 0);
    for (const char* wrote :
         {"WROTE-FILE", "MADE-SSH", "MADE-PROJECT", "MADE-LINK", "WROTE-TOOLCHAIN", "WROTE-GIT", "WROTE-KEYPAIR"}) {
        INFO(wrote);
        CHECK_FALSE(has(first.out, wrote));
    }
    CHECK(has(first.err, "Read-only file system"));
    CHECK(has(first.out, "WROTE-WORKTREE"));  // positive: the worktree stays writable
    // Host side: HOME and its folders are exactly as they were.
    CHECK(host_names(w.home) == home_before);
    CHECK(host_names(w.home + "/projects") == projects_before);
    CHECK_FALSE(exists(w.toolchain + "/planted"));
    CHECK(read_file(w.home + "/.ssh/id_rsa") == kSshKey);
    CHECK(read_file(h.project + "/written") == "OK\n");
    // The masks and read-only binds still land on the worktree bound back into the skeleton.
    CHECK_FALSE(has(first.out, kKeypair));
    CHECK(read_file(h.project + "/.git/config") == "APP-GIT-CONFIG");
    CHECK(read_file(h.project + "/deploy-keypair.json") == kKeypair);
    // Run 2: the links made by run 1 lead to names the skeleton does not have.
    auto second = h.run(R"SH(
        cat {home}/projects/app/ssh-link/id_rsa; cat {home}/projects/app/secret-link/plan.txt
        echo "home:$(ls -A {home} | tr '\n' ' ')"
        cat {home}/projects/app/written
        exit 0)SH");
    INFO(second.out << second.err);
    REQUIRE(second.exit_code == 0);
    CHECK_FALSE(has(second.out, kSshKey));
    CHECK_FALSE(has(second.out, "SECRET-PROJECT-PLAN"));
    CHECK(has(second.err, "id_rsa: No such file or directory"));
    CHECK(has(second.err, "plan.txt: No such file or directory"));
    CHECK(has(second.out, "home:.cargo projects tools \n"));  // nothing run 1 tried to add
    CHECK(has(second.out, "OK"));                        // positive: run 1's worktree file is there
}

TEST_CASE("--ro and --rw folders under HOME keep their rights in the skeleton", "[landlock][listing]") {
    require_landlock();
    HomeWorld h;
    const World& w = h.w;
    write_file(w.home + "/data/ro/input.txt", "RO-INPUT");
    write_file(w.home + "/data/rw/state.txt", "RW-BEFORE");
    write_file(w.home + "/data/private.txt", "DATA-PRIVATE");
    auto r = h.run(R"SH(
        echo "data:$(ls -A {home}/data | tr '\n' ' ')"
        cat {home}/data/ro/input.txt; echo
        echo CHANGED > {home}/data/ro/input.txt && echo WROTE-RO
        echo AFTER > {home}/data/rw/state.txt && echo WROTE-RW
        cat {home}/data/private.txt
        exit 0)SH",
                   {"--ro", w.home + "/data/ro", "--rw", w.home + "/data/rw"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has(r.out, "data:ro rw \n"));  // the folder on the way lists the two granted folders only
    CHECK(has(r.out, "RO-INPUT"));
    CHECK_FALSE(has(r.out, "WROTE-RO"));
    CHECK(has(r.err, "Read-only file system"));
    CHECK(has(r.out, "WROTE-RW"));
    CHECK_FALSE(has(r.out, "DATA-PRIVATE"));
    CHECK(has(r.err, "private.txt: No such file or directory"));
    // Host side: the read-only file kept its content, the read-write one changed.
    CHECK(read_file(w.home + "/data/ro/input.txt") == "RO-INPUT");
    CHECK(read_file(w.home + "/data/rw/state.txt") == "AFTER\n");
}
