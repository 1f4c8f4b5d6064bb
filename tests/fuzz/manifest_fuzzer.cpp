// The docker backend's runtime manifest (plugins/backends/docker/src/
// manifest.cpp), a TOML file that pins the image and user of every run.
// Properties: no crash; bad text is one sdk::Error naming the file and
// never another exception; a manifest that is accepted has a pinned image
// and, when it names one, a numeric user that is not root.
#include "manifest.hpp"

#include "fuzz_support.hpp"

#include <oms/sdk.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(oms::fuzz::as_text(data, size));
    try {
        const oms::docker::Manifest manifest = oms::docker::parse_manifest(text, "runtime.toml");
        OMS_FUZZ_REQUIRE(oms::docker::is_pinned_image(manifest.image));
        if (manifest.user) OMS_FUZZ_REQUIRE(oms::docker::user_problem(*manifest.user).empty());
    } catch (const oms::sdk::Error& error) {
        OMS_FUZZ_REQUIRE(std::string(error.what()).rfind("runtime.toml", 0) == 0);
    }
    return 0;
}
