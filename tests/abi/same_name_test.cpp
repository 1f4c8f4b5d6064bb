// Two plugins built without hidden visibility, both naming their class
// `Backend`, loaded into one process: each hands over its own descriptor.
#include <oms/sdk.h>

#include <catch2/catch.hpp>
#include <dlfcn.h>

#include <string>

namespace {

std::string loaded_id(const char* file) {
    void* library = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(library);  // kept loaded: the other plugin is opened while this one is mapped
    auto entry = reinterpret_cast<oms_plugin_entry_fn>(dlsym(library, OMS_PLUGIN_ENTRY_SYMBOL));
    REQUIRE(entry);
    const oms_plugin_descriptor* descriptor = nullptr;
    char message[128] = "";
    oms_error error{message, sizeof message};
    REQUIRE(entry(OMS_ABI_MAJOR, OMS_ABI_MINOR, &descriptor, &error) == OMS_OK);
    return descriptor->id;
}

}  // namespace

TEST_CASE("sdk.hpp's statics stay inside each plugin built with default visibility") {
    CHECK(loaded_id(OMS_SAME_NAME_A) == "same-name-a");
    CHECK(loaded_id(OMS_SAME_NAME_B) == "same-name-b");
}
