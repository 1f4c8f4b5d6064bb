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
#include <sys/stat.h>
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

TEST_CASE("secret search: a keypair-named link out of the roots: to a folder always refused, to a file only where "
          "the host outside is readable") {
    Tree tree;
    fs::create_directory_symlink("../../elsewhere", tree.root + "/work/src/wallet-keypair.json");
    fs::create_symlink("../../elsewhere/away-keypair.json", tree.root + "/work/src/away-keypair.json");
    auto search = search_of(tree, {"-keypair.json"}, false);
    const auto container = oms::sdk::find_secrets(search);  // a container shows only its mounts
    REQUIRE(container.keypair_links.size() == 2);
    // The file link out of the mounts is fine there: the container cannot read its target.
    CHECK(container.keypair_links[0].path == tree.root + "/work/src/prog-keypair.json");
    // A folder link is refused wherever it leads: a later run whose mounts
    // hold the folder reads what a `cp` put in it.
    CHECK(container.keypair_links[1].path == tree.root + "/work/src/wallet-keypair.json");
    CHECK(container.keypair_links[1].why ==
          "a link to the folder " + fs::canonical(tree.root + "/elsewhere").string());
    search.host_readable_outside = true;
    const auto host = oms::sdk::find_secrets(search);
    REQUIRE(host.keypair_links.size() == 3);
    CHECK(host.keypair_links[0].path == tree.root + "/work/src/away-keypair.json");
    CHECK(host.keypair_links[0].why == "a link to " + fs::canonical(tree.root + "/elsewhere/away-keypair.json").string() +
                                           ", outside the folders searched for keypairs");
    try {
        oms::sdk::refuse_unhideable(host, "test");
        FAIL("a keypair-named link was not refused");
    } catch (const oms::sdk::Error& e) {
        const std::string message = e.what();
        CHECK(message.rfind("test: keypair names that a mask cannot hide alone: " + tree.root +
                                "/work/src/away-keypair.json (a link to ",
                            0) == 0);
        CHECK(message.find(", " + tree.root + "/work/src/wallet-keypair.json (a link to the folder ") !=
              std::string::npos);
        CHECK(message.find("; the command did not run. To run, remove the links, then put the key itself") !=
              std::string::npos);
    }
}

TEST_CASE("secret search: a keypair-named link whose target cannot be resolved is refused") {
    Tree tree;
    // Twenty folders of 250-byte names hold leak.txt; two short links lead
    // there, so the link resolves (stat) but its real path is past PATH_MAX.
    std::string deep = tree.root + "/work";
    std::string first_half, second_half;
    for (int i = 0; i < 20; ++i) {
        const std::string name(250, static_cast<char>('a' + i));
        (i < 10 ? first_half : second_half) += (i == 0 || i == 10 ? "" : "/") + name;
    }
    fs::create_directories(tree.root + "/work/" + first_half);
    // Made from inside the first half: the full path is too long to name at once.
    REQUIRE(chdir((tree.root + "/work/" + first_half).c_str()) == 0);
    fs::create_directories(second_half);
    std::ofstream(second_half + "/leak.txt") << "notes";
    fs::create_symlink(second_half, "h2");
    REQUIRE(chdir(tree.root.c_str()) == 0);
    fs::create_symlink(first_half, tree.root + "/work/h1");
    fs::create_symlink("h1/h2/leak.txt", tree.root + "/work/long-keypair.json");
    struct stat st;
    REQUIRE(stat((tree.root + "/work/long-keypair.json").c_str(), &st) == 0);  // it leads somewhere
    const auto found = oms::sdk::find_secrets(search_of(tree, {"-keypair.json"}, false));
    bool refused = false;
    for (const auto& link : found.keypair_links)
        refused = refused || (link.path == tree.root + "/work/long-keypair.json" &&
                              link.why == "a link whose target cannot be resolved");
    CHECK(refused);
    REQUIRE(chdir("/") == 0);
}

TEST_CASE("secret search: a walk cut short still names a keypair with a second name, and judges a link in skip") {
    Tree tree;
    const std::string keypair = tree.root + "/work/a/prog-keypair.json";
    fs::create_directories(tree.root + "/work/a");
    std::ofstream(keypair) << "";
    fs::create_hard_link(keypair, tree.root + "/work/a/notes.txt");
    fs::create_directories(tree.root + "/work/z");
    for (int f = 0; f < 50; ++f) std::ofstream(tree.root + "/work/z/" + std::to_string(f)) << "";
    // The keypair's folder first, so the walk meets it before its limit.
    oms::sdk::SecretSearch search{"test", {tree.root + "/work/a", tree.root + "/work/z"}, {"-keypair.json"}, {}, {}};
    search.entry_limit = 20;
    const auto cut = oms::sdk::find_secrets(search);
    CHECK_FALSE(cut.complete);
    CHECK(cut.files == std::vector<std::string>{keypair});
    REQUIRE(cut.linked.size() == 1);
    CHECK(cut.linked[0].path == keypair);
    CHECK(cut.linked[0].other_names.empty());  // not looked for past the limit: the refusal stays
    CHECK_THROWS_AS(oms::sdk::refuse_unhideable(cut, "test"), oms::sdk::Error);
    search.entry_limit = 100000;  // control: the whole walk names the other name
    const auto whole = oms::sdk::find_secrets(search);
    CHECK(whole.complete);
    REQUIRE(whole.linked.size() == 1);
    CHECK(whole.linked[0].other_names == std::vector<std::string>{tree.root + "/work/a/notes.txt"});
    // A keypair-named link on the skip list (a READ_DENY path a command
    // replaced with a link) is judged like any other.
    search = search_of(tree, {"-keypair.json"}, false);
    search.skip = {tree.root + "/work/src/prog-keypair.json"};
    const auto skipped = oms::sdk::find_secrets(search);
    REQUIRE(skipped.keypair_links.size() == 1);
    CHECK(skipped.keypair_links[0].path == tree.root + "/work/src/prog-keypair.json");
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
