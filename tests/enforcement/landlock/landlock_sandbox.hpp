// A planted world for the enforcement tests and two ways to run a command in
// it under the landlock backend:
//  - through the real `oms run --sandbox landlock` (OMS_BIN), when that
//    binary has the `run` command and the policy plugins;
//  - through the plugin's C ABI (dlopen of oms-landlock.so, spawn/wait),
//    with the policy the default policy plugins produce, rebuilt here.
// The world: a fake HOME with secrets and another repository, a toolchain
// root under HOME, a worktree with a .git, a pinned file and a keypair file,
// a folder outside HOME, and the per-run private HOME and TMPDIR.
#pragma once
#include "plugin_harness.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

#include <oms/sdk.h>

#include <string>
#include <vector>

namespace oms::test {

// A folder removed with everything in it. Worlds live in the build tree, not
// in /tmp: the default policy makes /tmp and /var/tmp write roots.
class WorldRoot {
public:
    WorldRoot();
    explicit WorldRoot(const std::string& base);  // a world below `base` (e.g. /tmp)
    ~WorldRoot();
    WorldRoot(const WorldRoot&) = delete;
    WorldRoot& operator=(const WorldRoot&) = delete;
    std::string operator/(const std::string& relative) const { return path_ + "/" + relative; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

struct World {
    WorldRoot root;
    std::string home, work, other_repo, toolchain, outside, private_home, temp;
    std::string pinned;  // work/tests/verify.sh
    World();
    explicit World(const std::string& base);  // rooted below `base` instead of the build tree

private:
    void plant();
};

// Secret texts planted in the world; a test checks none ever comes out.
extern const char* const kSshKey;
extern const char* const kAwsKey;
extern const char* const kSolanaId;
extern const char* const kKeypair;
extern const char* const kOtherRepo;

// The landlock plugin loaded through its C entry point.
class LandlockPlugin {
public:
    explicit LandlockPlugin(FakeHost& host);
    ~LandlockPlugin();
    const oms_backend_api& api() const { return *api_; }
    void* instance() const { return instance_; }
    std::string create_error;

private:
    void* library_ = nullptr;
    const oms_plugin_descriptor* descriptor_ = nullptr;
    const oms_backend_api* api_ = nullptr;
    void* instance_ = nullptr;
};

struct RunOptions {
    uint32_t flags = 0;                 // OMS_RUN_*
    std::vector<int> keep_open;         // extra descriptors left inheritable during spawn
    int64_t max_abi = 0;                // [plugin.landlock] max_abi
    std::vector<std::string> hide;      // [plugin.landlock] hide
    std::vector<std::string> argv;      // default: sh -c <script>
    std::vector<std::pair<oms_rule_kind, std::string>> extra_rules;  // added to the default policy
    std::vector<uint16_t> loopback_ports;  // relayed besides 8899 (NET_CONNECT_LOOPBACK)
    std::string working_dir;            // the context's working_dir (empty: NULL, the worktree)
    std::vector<std::string> read_write;  // the context's --rw folders (add their write rules too)
};

struct RunOutcome {
    oms_status spawn_status = OMS_OK;
    std::string spawn_error;
    int exit_code = -1;
    std::string out, err;
};

// Runs `script` with sh under the landlock plugin (C ABI), in the world.
RunOutcome run_in_plugin(World& world, const std::string& script, const RunOptions& options = {});
// The policy the default policy plugins would assemble for the world.
PolicyBuilder default_policy(const World& world);
ContextBuilder default_context(const World& world, const std::vector<std::string>& argv);

// The environment `oms` gets in the world: HOME, its own config and state, PATH.
std::vector<std::string> oms_world_env(const World& world);
// Runs `script` through `oms run --sandbox landlock --worktree <work>
// --pinned <pinned> -- sh -c <script>` with HOME set to the fake home.
RunOutcome run_in_oms(World& world, const std::string& script, const std::vector<std::string>& extra_env = {});
// The same with `options` (oms run's own flags) before the `--`.
RunOutcome run_in_oms_with_options(World& world, const std::vector<std::string>& options, const std::string& script,
                                   const std::vector<std::string>& extra_env = {});
// The same with `--rw <read_write>` too.
RunOutcome run_in_oms_with_rw(World& world, const std::string& read_write, const std::string& script,
                              const std::vector<std::string>& extra_env = {});
// True when the built oms has `run` and the default policy plugins.
bool oms_run_available();

// Which way a test runs its command: every test runs under each available one.
enum class Driver { plugin, oms };
std::vector<Driver> drivers();
const char* driver_name(Driver driver);
RunOutcome run_confined(Driver driver, World& world, const std::string& script);

// The helper built next to the tests (runs inside the sandbox).
std::string probe_tool();

}  // namespace oms::test
