// Runtime view of the layout checks (the C file fails the build first).
#include <oms/sdk.h>

#include <catch2/catch.hpp>

extern "C" int oms_abi_layout_checked(void);

TEST_CASE("the ABI header compiles as C11 with the 1.0 layout") {
    CHECK(oms_abi_layout_checked() == OMS_ABI_MAJOR * 100 + OMS_ABI_MINOR);
    CHECK(std::string(OMS_PLUGIN_ENTRY_SYMBOL) == "oms_plugin_entry");
    CHECK(std::string(OMS_KIND_BACKEND) == "oms.backend/1");
    CHECK(std::string(OMS_KIND_POLICY) == "oms.policy/1");
}
