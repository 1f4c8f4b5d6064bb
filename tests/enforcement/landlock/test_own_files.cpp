// oms's own files inside a write root (a repository with oms built in it,
// OMS_PLUGIN_PATH pointing into the worktree, --rw over oms's config folder):
// run 1 tries to replace a plugin, the default config, the user's config and
// the binary, and to rename their folders away; the host files are unchanged
// afterwards and run 2, through the same copied oms, still runs the plugins
// it had. Positive control: another file of the same worktree is written.
#include "test_support.hpp"

#include "process.hpp"

#include <filesystem>
#include <map>

using namespace oms::test;
namespace fs = std::filesystem;

namespace {

// A copy of the built oms laid out as in a build tree inside the worktree:
// <work>/build/{bin/oms, lib/oms/plugins/*.so, share/oms/default.toml}.
struct OmsInWorktree {
    std::string bin, plugins, default_config, extra_plugins;
};

OmsInWorktree copy_oms_into(const World& w) {
    const fs::path built = fs::path(oms_binary()).parent_path().parent_path();
    OmsInWorktree copy{w.work + "/build/bin/oms", w.work + "/build/lib/oms/plugins",
                       w.work + "/build/share/oms/default.toml", w.work + "/extra-plugins"};
    make_dirs(w.work + "/build/bin");
    make_dirs(w.work + "/build/lib/oms");
    make_dirs(w.work + "/build/share");
    make_dirs(copy.extra_plugins);
    fs::copy_file(oms_binary(), copy.bin);
    fs::copy(built / "lib/oms/plugins", copy.plugins, fs::copy_options::recursive);
    fs::copy(built / "share/oms", w.work + "/build/share/oms", fs::copy_options::recursive);
    return copy;
}

ProcessResult run_copied_oms(World& w, const OmsInWorktree& copy, const std::string& plugin_path,
                             const std::vector<std::string>& extra_args, const std::string& script) {
    const std::map<std::string, std::string> env{{"HOME", w.home},
                                                 {"XDG_CONFIG_HOME", w.root / "xdg-config"},
                                                 {"XDG_STATE_HOME", w.root / "xdg-state"},
                                                 {"OMS_PLUGIN_PATH", plugin_path},
                                                 {"PATH", "/usr/bin:/bin"}};
    std::vector<std::string> argv{copy.bin, "run", "--sandbox", "landlock", "--worktree", w.work};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    for (const char* tail : {"--", "/bin/sh", "-c"}) argv.emplace_back(tail);
    argv.push_back(script);
    return run_process(argv, {environment_with(env), std::nullopt, w.work, 60});
}

}  // namespace

TEST_CASE("oms's own files in a write root stay read-only: plugin, configs and binary survive run 1",
          "[landlock][own-files]") {
    require_landlock();
    World w;
    const OmsInWorktree copy = copy_oms_into(w);
    const std::string user_config = w.root / "xdg-config/oms/config.toml";
    const std::string plugin = copy.plugins + "/oms-network.so";
    const std::string plugin_before = read_file(plugin), binary_before = read_file(copy.bin);
    const std::string defaults_before = read_file(copy.default_config), config_before = read_file(user_config);

    const std::string xdg = w.root / "xdg-config";
    ProcessResult strike = run_copied_oms(w, copy, copy.extra_plugins, {"--rw", xdg}, "XDG=" + xdg + R"SH(
        echo EVIL > build/lib/oms/plugins/oms-network.so
        mv build/lib/oms/plugins build/lib/oms/plugins.old
        mv build/lib build/lib.old
        mv build build.old
        echo EVIL > build/share/oms/default.toml
        mv build/bin/oms build/bin/oms.old
        chmod 777 build/bin/oms
        echo EVIL > extra-plugins/oms-evil.so
        mv extra-plugins extra-plugins.old
        echo EVIL > "$XDG/oms/config.toml"
        mv "$XDG/oms" "$XDG/oms.old"
        echo CONTROL > build/control.txt
        echo CONTROL > "$XDG/control.txt"
        exit 0)SH");
    INFO(strike.out << strike.err);
    CHECK(strike.exit_code == 0);
    CHECK(read_file(plugin) == plugin_before);
    CHECK(read_file(copy.bin) == binary_before);
    CHECK((fs::status(copy.bin).permissions() & fs::perms::others_write) == fs::perms::none);
    CHECK(read_file(copy.default_config) == defaults_before);
    CHECK(read_file(user_config) == config_before);
    CHECK_FALSE(fs::exists(copy.extra_plugins + "/oms-evil.so"));
    for (const char* moved : {"build/lib/oms/plugins.old", "build/lib.old", "build.old", "build/bin/oms.old",
                              "extra-plugins.old"})
        CHECK_FALSE(fs::exists(w.work + "/" + moved));
    CHECK_FALSE(fs::exists(w.root / "xdg-config/oms.old"));
    // Positive control: the rest of both write roots is writable.
    CHECK(read_file(w.work + "/build/control.txt") == "CONTROL\n");
    CHECK(read_file(w.root / "xdg-config/control.txt") == "CONTROL\n");

    // Run 2: the same copied oms still loads its own plugins and runs.
    ProcessResult next = run_copied_oms(w, copy, copy.extra_plugins, {}, "cat README");
    INFO(next.out << next.err);
    CHECK(next.exit_code == 0);
    CHECK(next.out == "WORKTREE-README");
}

TEST_CASE("a plugin folder that does not exist inside the worktree refuses the run", "[landlock][own-files]") {
    require_landlock();
    World w;
    const OmsInWorktree copy = copy_oms_into(w);
    const std::string missing = w.work + "/not-yet-plugins";
    ProcessResult run = run_copied_oms(w, copy, missing, {}, "mkdir not-yet-plugins; echo RAN > ran.txt");
    INFO(run.out << run.err);
    CHECK(run.exit_code == 77);
    CHECK(run.err.find("oms's plugin folder '" + missing + "' does not exist and lies inside the write root '" +
                       w.work + "'") != std::string::npos);
    CHECK_FALSE(fs::exists(w.work + "/ran.txt"));
    CHECK_FALSE(fs::exists(missing));
    // Positive control: once the folder exists it is protected and the run goes ahead.
    make_dirs(missing);
    ProcessResult control = run_copied_oms(w, copy, missing, {}, "echo RAN > ran.txt; echo EVIL > not-yet-plugins/x.so; exit 0");
    INFO(control.out << control.err);
    CHECK(control.exit_code == 0);
    CHECK(read_file(w.work + "/ran.txt") == "RAN\n");
    CHECK_FALSE(fs::exists(missing + "/x.so"));
}

TEST_CASE("a plugin folder named through a link inside the worktree refuses the run", "[landlock][own-files]") {
    require_landlock();
    World w;
    const OmsInWorktree copy = copy_oms_into(w);
    make_dirs(w.outside + "/plugins");
    fs::create_directory_symlink(w.outside + "/plugins", w.work + "/plugins-link");
    // Run 1 could re-point the link at a folder of its own; so the link is never trusted.
    ProcessResult run = run_copied_oms(w, copy, w.work + "/plugins-link", {}, "echo RAN > ran.txt");
    INFO(run.out << run.err);
    CHECK(run.exit_code == 77);
    CHECK(run.err.find("oms's plugin folder '" + w.work + "/plugins-link' goes through the link '" + w.work +
                       "/plugins-link', which lies inside a write root") != std::string::npos);
    CHECK_FALSE(fs::exists(w.work + "/ran.txt"));
    // Positive control: the real folder, outside every write root, is fine.
    ProcessResult control = run_copied_oms(w, copy, w.outside + "/plugins", {}, "echo RAN > ran.txt");
    INFO(control.out << control.err);
    CHECK(control.exit_code == 0);
    CHECK(read_file(w.work + "/ran.txt") == "RAN\n");
}

TEST_CASE("a plugin file or the user config linked from a file in the worktree stays read-only",
          "[landlock][own-files]") {
    require_landlock();
    World w;
    const OmsInWorktree copy = copy_oms_into(w);
    // A plugin built in the worktree and linked into a plugin folder outside
    // it, and the user's config kept in a dotfiles folder of the worktree.
    const std::string plugin_target = w.work + "/dev/oms-network.so";
    const std::string linked_plugins = w.outside + "/linked-plugins";
    make_dirs(w.work + "/dev");
    make_dirs(linked_plugins);
    fs::rename(copy.plugins + "/oms-network.so", plugin_target);
    fs::create_symlink(plugin_target, linked_plugins + "/oms-network.so");
    const std::string user_config = w.root / "xdg-config/oms/config.toml";
    const std::string config_target = w.work + "/dotfiles/oms-config.toml";
    write_file(config_target, fs::exists(user_config) ? read_file(user_config) : "");
    fs::remove(user_config);
    fs::create_symlink(config_target, user_config);
    const std::string plugin_before = read_file(plugin_target), config_before = read_file(config_target);

    ProcessResult strike = run_copied_oms(w, copy, linked_plugins, {}, R"SH(
        echo EVIL > dev/oms-network.so
        echo '[sandbox]' > dotfiles/oms-config.toml
        mv dev dev.old; mv dotfiles dotfiles.old
        echo CONTROL > control.txt
        exit 0)SH");
    INFO(strike.out << strike.err);
    CHECK(strike.exit_code == 0);
    CHECK(read_file(plugin_target) == plugin_before);
    CHECK(read_file(config_target) == config_before);
    CHECK_FALSE(fs::exists(w.work + "/dev.old"));
    CHECK_FALSE(fs::exists(w.work + "/dotfiles.old"));
    // Positive control: the rest of the worktree is writable.
    CHECK(read_file(w.work + "/control.txt") == "CONTROL\n");

    ProcessResult policy = run_process({copy.bin, "policy", "--sandbox", "landlock", "--worktree", w.work},
                                       {environment_with({{"HOME", w.home},
                                                          {"XDG_CONFIG_HOME", w.root / "xdg-config"},
                                                          {"XDG_STATE_HOME", w.root / "xdg-state"},
                                                          {"OMS_PLUGIN_PATH", linked_plugins},
                                                          {"PATH", "/usr/bin:/bin"}}),
                                        std::nullopt, w.work, 60});
    INFO(policy.out << policy.err);
    CHECK(policy.out.find(plugin_target) != std::string::npos);
    CHECK(policy.out.find(config_target) != std::string::npos);
}

TEST_CASE("oms's state folder is hidden from a command that a read root would show it to",
          "[landlock][own-files]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    const std::string xdg_state = w.root / "xdg-state";
    // A first run makes the state folder and its record of the last run.
    auto first = run_in_oms(w, "true");
    REQUIRE(first.exit_code == 0);
    REQUIRE(fs::exists(xdg_state + "/oms/last-run.json"));
    write_file(xdg_state + "/beside.txt", "BESIDE");
    // `--ro` of the folder holding it (as `--ro ~/.local` holds ~/.local/state/oms).
    auto r = run_in_oms_with_options(w, {"--ro", xdg_state},
                          "cat " + xdg_state + "/beside.txt; echo; ls -A " + xdg_state + "/oms | wc -l; cat " +
                              xdg_state + "/oms/last-run.json 2>/dev/null || echo HIDDEN");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "BESIDE\n0\nHIDDEN\n");  // the control first: the rest of the read root is there
    auto policy = run_process({oms_binary(), "policy", "--sandbox", "landlock", "--worktree", w.work, "--ro", xdg_state},
                              {oms_world_env(w), std::nullopt, w.work, 60});
    CHECK(policy.out.find("read-deny            " + xdg_state + "/oms") != std::string::npos);
    CHECK(policy.out.find("(core: oms's state folder)") != std::string::npos);
}

TEST_CASE("oms's state folder outside HOME is hidden from a command though no root names it",
          "[landlock][own-files]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;  // in the build tree: XDG_STATE_HOME lies beside HOME, where reads are allowed
    const std::string xdg_state = w.root / "xdg-state";
    REQUIRE(run_in_oms(w, "true").exit_code == 0);
    REQUIRE(fs::exists(xdg_state + "/oms/last-run.json"));
    write_file(xdg_state + "/beside.txt", "BESIDE");
    auto r = run_in_oms(w, "cat " + xdg_state + "/beside.txt; echo; ls -A " + xdg_state + "/oms | wc -l; cat " +
                               xdg_state + "/oms/last-run.json 2>/dev/null || echo HIDDEN");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "BESIDE\n0\nHIDDEN\n");  // the control first: the folder beside it reads
}
