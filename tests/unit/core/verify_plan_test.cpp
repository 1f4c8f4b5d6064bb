// oms verify's plan comes from the backend's oms.verify-plan/1 extension:
// each in-tree backend's declared plan, the same plan under another id, and
// the documented defaults without one (or with one this oms cannot keep).
#include "oms/core/config.hpp"
#include "oms/core/registry.hpp"
#include "oms/core/verify_plan.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace oms::core;

namespace {

const oms_verify_plan* declared_plan(const Registry& registry, const std::string& id) {
    const PluginRecord* record = registry.find(id);
    REQUIRE(record != nullptr);
    const oms_backend_api* api = record->backend();
    REQUIRE(api->get_extension != nullptr);
    return static_cast<const oms_verify_plan*>(
        api->get_extension(registry.instance(id)->handle(), OMS_EXTENSION_VERIFY_PLAN));
}

struct Expected {
    const char* id;
    VerifyNetwork network;
    std::vector<std::string> launcher;
    bool output_to_owner;
    const char* text;  // a part of the network line
};

oms_status refuse_always(void*, oms_error* error) {
    std::snprintf(error->buffer, error->capacity, "%s", "[plugin.x] net = \"wide\"");
    return OMS_ERR_UNSUPPORTED;
}

}  // namespace

TEST_CASE("verify plan: each in-tree backend declares its own, and another id gets the same", "[verify]") {
    Registry registry;
    registry.load_from({OMS_PLUGIN_BUILD_DIR});
    Config config;
    registry.instantiate(config);
    const Expected table[] = {
        {"landlock", VerifyNetwork::private_loopback, {}, false, "private network namespace: the Surfnet listens on "
                                                                 "the check's own 127.0.0.1:18999"},
        {"docker", VerifyNetwork::private_loopback, {"/.oms/runner", "--verify-launch"}, true,
         "the container's own network (--network none)"},
        {"seatbelt", VerifyNetwork::host_port, {}, false, "the Surfnet listens on the host's 127.0.0.1:18999"},
        {"host-null", VerifyNetwork::unconfined, {}, false, "none: OMS host mode has NO sandbox here"},
    };
    for (const Expected& row : table) {
        INFO(row.id);
        const PluginRecord* record = registry.find(row.id);
        if (!record) FAIL("in-tree backend not built: " << row.id);
        const oms_verify_plan* declared = declared_plan(registry, row.id);
        REQUIRE(declared != nullptr);
        const VerifyPlan own = verify_plan_of(*record, *registry.instance(row.id), 18999);
        CHECK(own.network.kind == row.network);
        CHECK(own.network.text.find(row.text) != std::string::npos);
        CHECK(own.network.text.find("{port}") == std::string::npos);
        CHECK(own.launcher == row.launcher);
        CHECK(own.output_to_worktree_owner == row.output_to_owner);
        // The same declaration under a third party's id: the same plan.
        const VerifyPlan other = verify_plan_from(declared, record->backend()->flags, "acme-box", 18999);
        CHECK(other.network.kind == own.network.kind);
        CHECK(other.network.text == own.network.text);
        CHECK(other.launcher == own.launcher);
        CHECK(other.output_to_worktree_owner == own.output_to_worktree_owner);
        CHECK(other.check == own.check);
    }
    // The launcher: oms's own unless the plan names one inside the sandbox.
    const VerifyPlan landlock = verify_plan_of(*registry.find("landlock"), *registry.instance("landlock"), 1);
    CHECK(verify_launcher(landlock).back() == "__verify-launch");
    const VerifyPlan docker = verify_plan_of(*registry.find("docker"), *registry.instance("docker"), 1);
    CHECK(verify_launcher(docker) == std::vector<std::string>{"/.oms/runner", "--verify-launch"});
    // docker's default network ("none") keeps its plan (positive control of
    // the docker integration test's refusal of another network).
    CHECK_NOTHROW(require_verify_network(docker, registry.instance("docker")->handle(), "docker"));
}

TEST_CASE("verify plan: without the extension, a confining backend is refused and one that confines nothing is "
          "said as it is", "[verify]") {
    const VerifyPlan confining = verify_plan_from(nullptr, OMS_BACKEND_CONFINES, "acme-box", 8899);
    CHECK(confining.network.kind == VerifyNetwork::unsupported);
    CHECK(confining.network.text ==
          "the backend 'acme-box' declares no verify plan (oms.verify-plan/1), so oms verify cannot promise the check "
          "reaches only its Surfnet");
    const VerifyPlan open = verify_plan_from(nullptr, OMS_BACKEND_NEEDS_APPROVAL, "acme-open", 8899);
    CHECK(open.network.kind == VerifyNetwork::unconfined);
    CHECK(open.network.text.find("confines nothing") != std::string::npos);
    CHECK(open.launcher.empty());
    CHECK_FALSE(open.output_to_worktree_owner);
}

TEST_CASE("verify plan: a plan this oms cannot keep is refused", "[verify]") {
    const char* const launcher[] = {"/inside/launch"};
    oms_verify_plan good{sizeof(oms_verify_plan), OMS_VERIFY_NETWORK_PRIVATE_LOOPBACK, "own loopback, port {port}",
                         {launcher, 1}, OMS_VERIFY_OUTPUT_TO_WORKTREE_OWNER, nullptr};
    const VerifyPlan kept = verify_plan_from(&good, OMS_BACKEND_CONFINES, "acme-box", 4242);
    CHECK(kept.network.kind == VerifyNetwork::private_loopback);  // positive control
    CHECK(kept.network.text == "own loopback, port 4242");
    CHECK(kept.launcher == std::vector<std::string>{"/inside/launch"});
    CHECK(kept.output_to_worktree_owner);

    oms_verify_plan unknown_network = good;
    unknown_network.network = 99;
    CHECK(verify_plan_from(&unknown_network, OMS_BACKEND_CONFINES, "acme-box", 1).network.kind ==
          VerifyNetwork::unsupported);
    oms_verify_plan unknown_flag = good;
    unknown_flag.flags |= 0x80u;
    CHECK(verify_plan_from(&unknown_flag, OMS_BACKEND_CONFINES, "acme-box", 1).network.kind ==
          VerifyNetwork::unsupported);
    oms_verify_plan short_struct = good;
    short_struct.struct_size = offsetof(oms_verify_plan, check);
    CHECK(verify_plan_from(&short_struct, OMS_BACKEND_CONFINES, "acme-box", 1).network.kind ==
          VerifyNetwork::unsupported);
    oms_verify_plan no_text = good;
    no_text.network_text = nullptr;
    CHECK(verify_plan_from(&no_text, OMS_BACKEND_CONFINES, "acme-box", 1).network.kind == VerifyNetwork::unsupported);
    oms_verify_plan empty_launcher = good;
    const char* const blank[] = {""};
    empty_launcher.launcher = {blank, 1};
    CHECK(verify_plan_from(&empty_launcher, OMS_BACKEND_CONFINES, "acme-box", 1).network.kind ==
          VerifyNetwork::unsupported);

    // The plan's check refuses: the backend's own line, nothing ran.
    oms_verify_plan checked = good;
    checked.check = &refuse_always;
    const VerifyPlan refusing = verify_plan_from(&checked, OMS_BACKEND_CONFINES, "acme-box", 1);
    CHECK(refusing.check == &refuse_always);
    CHECK_THROWS_WITH(require_verify_network(refusing, nullptr, "acme-box"),
                      "oms verify: acme-box: [plugin.x] net = \"wide\". Nothing ran.");
    CHECK_NOTHROW(require_verify_network(kept, nullptr, "acme-box"));  // no check: nothing to refuse
}
