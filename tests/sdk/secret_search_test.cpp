// oms/secret_search.hpp on small trees: `collect_links` lists every link
// below the roots and follows none (a key behind a link to a folder is not
// found through it), with or without suffixes; without the flag none is
// listed, while the keypair rules about links still hold. And a keypair with
// a second name is reported with that name, though the walk looks at no
// plain file whose name no rule wants (the other names come from a second
// walk).
#include <oms/sdk.hpp>
#include <oms/secret_search.hpp>

#include <catch2/catch.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Tree {
    std::string root;
    Tree() {
        // Not in /tmp: tests of --rw /tmp walk it, and a keypair file with
        // two names planted here would stop their runs.
        char name[] = "/var/tmp/oms-secret-search-XXXXXX";
        REQUIRE(mkdtemp(name) != nullptr);
        root = name;
        fs::create_directories(root + "/work/src");
        fs::create_directories(root + "/elsewhere");
        std::ofstream(root + "/elsewhere/away-keypair.json") << "[1,2,3]";
        std::ofstream(root + "/work/notes.txt") << "notes";
        fs::create_directory_symlink("../../elsewhere", root + "/work/src/out");
        fs::create_symlink("../notes.txt", root + "/work/src/prog-keypair.json");
        fs::create_symlink("missing", root + "/work/dangling");
    }
    ~Tree() { fs::remove_all(root); }
};

oms::sdk::SecretSearch search_of(const Tree& tree, std::vector<std::string> suffixes, bool collect) {
    oms::sdk::SecretSearch search{"test", {tree.root + "/work"}, std::move(suffixes), {}, {}};
    search.collect_links = collect;
    return search;
}

}  // namespace

TEST_CASE("secret search: collect_links lists every link and follows none") {
    Tree tree;
    const auto found = oms::sdk::find_secrets(search_of(tree, {"-keypair.json"}, true));
    const std::vector<std::string> links{tree.root + "/work/dangling", tree.root + "/work/src/out",
                                         tree.root + "/work/src/prog-keypair.json"};
    CHECK(found.links == links);
    CHECK(found.files.empty());  // the key behind src/out was not reached through the link
    REQUIRE(found.keypair_links.size() == 1);  // the rule about keypair-named links still holds
    CHECK(found.keypair_links[0].path == tree.root + "/work/src/prog-keypair.json");
    CHECK(found.keypair_links[0].why.rfind("a link to ", 0) == 0);
    CHECK(found.keypair_links[0].why.find(", a name no keypair rule hides") != std::string::npos);
}

TEST_CASE("secret search: collect_links walks without suffixes; without it no link is listed") {
    Tree tree;
    const auto without_suffixes = oms::sdk::find_secrets(search_of(tree, {}, true));
    CHECK(without_suffixes.links.size() == 3);
    CHECK(without_suffixes.keypair_links.empty());
    const auto not_asked = oms::sdk::find_secrets(search_of(tree, {"-keypair.json"}, false));
    CHECK(not_asked.links.empty());
    CHECK(not_asked.keypair_links.size() == 1);  // control: the same walk, the same tree
}

TEST_CASE("secret search: a keypair with a second name is listed with it; a plain keypair is not linked") {
    Tree tree;
    const std::string keypair = tree.root + "/work/target/deploy/prog-keypair.json";
    fs::create_directories(tree.root + "/work/target/deploy");
    std::ofstream(keypair) << "[1,2,3]";
    std::ofstream(tree.root + "/work/target/deploy/other-keypair.json") << "[4,5,6]";
    fs::create_hard_link(keypair, tree.root + "/work/src/harmless.txt");
    const auto found = oms::sdk::find_secrets(search_of(tree, {"-keypair.json"}, false));
    REQUIRE(found.linked.size() == 1);
    CHECK(found.linked[0].path == keypair);
    CHECK(found.linked[0].names == 2);
    CHECK(found.linked[0].other_names == std::vector<std::string>{tree.root + "/work/src/harmless.txt"});
    const std::vector<std::string> files{tree.root + "/work/target/deploy/other-keypair.json", keypair};
    CHECK(found.files == files);  // control: the one-name keypair is found, and not as linked
}

TEST_CASE("secret search: a keypair-named link out of the roots is refused only where the host outside is readable") {
    Tree tree;
    fs::create_directory_symlink("../../elsewhere", tree.root + "/work/src/wallet-keypair.json");
    auto search = search_of(tree, {"-keypair.json"}, false);
    const auto container = oms::sdk::find_secrets(search);  // a container shows only its mounts
    CHECK(container.keypair_links.size() == 1);             // the link to notes.txt, inside the roots
    search.host_readable_outside = true;
    const auto host = oms::sdk::find_secrets(search);
    REQUIRE(host.keypair_links.size() == 2);
    CHECK(host.keypair_links[1].path == tree.root + "/work/src/wallet-keypair.json");
    CHECK(host.keypair_links[1].why == "a link to the folder " + fs::canonical(tree.root + "/elsewhere").string());
    try {
        oms::sdk::refuse_unhideable(host, "test");
        FAIL("a keypair-named link was not refused");
    } catch (const oms::sdk::Error& e) {
        const std::string message = e.what();
        CHECK(message.rfind("test: keypair names that a mask cannot hide alone: " + tree.root +
                                "/work/src/prog-keypair.json (a link to ",
                            0) == 0);
        CHECK(message.find(", " + tree.root + "/work/src/wallet-keypair.json (a link to the folder ") !=
              std::string::npos);
        CHECK(message.find("; the command did not run. To run, remove the links, then put the key itself") !=
              std::string::npos);
    }
}

TEST_CASE("secret search: fold_case matches a keypair name in capitals") {
    Tree tree;
    const std::string shouting = tree.root + "/work/PROG-KEYPAIR.JSON";
    std::ofstream(shouting) << "";
    fs::create_hard_link(shouting, tree.root + "/work/plain.txt");
    auto search = search_of(tree, {"-keypair.json"}, false);
    CHECK(oms::sdk::find_secrets(search).linked.empty());  // control: case matters by default
    search.fold_case = true;
    const auto folded = oms::sdk::find_secrets(search);
    REQUIRE(folded.linked.size() == 1);
    CHECK(folded.linked[0].path == shouting);
    CHECK(folded.linked[0].other_names == std::vector<std::string>{tree.root + "/work/plain.txt"});
}

TEST_CASE("secret search: a folder a planted link leads out to is searched, unless it is hidden") {
    Tree tree;  // work/src/out -> ../elsewhere
    const std::string planted = tree.root + "/elsewhere/prog-keypair.json";
    std::ofstream(planted) << "";
    fs::create_hard_link(planted, tree.root + "/elsewhere/notes");
    auto search = search_of(tree, {"-keypair.json"}, false);
    CHECK(oms::sdk::find_secrets(search).linked.empty());  // control: links are not followed by default
    search.follow_links_from = {tree.root + "/work"};
    const auto followed = oms::sdk::find_secrets(search);
    REQUIRE(followed.linked.size() == 1);
    CHECK(followed.linked[0].path == fs::canonical(planted).string());
    CHECK(followed.links.empty());  // collected for the following only, not asked for
    search.hidden = {tree.root + "/elsewhere"};
    CHECK(oms::sdk::find_secrets(search).linked.empty());  // a hidden tree is not followed into
}
