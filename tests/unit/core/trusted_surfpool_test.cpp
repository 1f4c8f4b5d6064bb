// The trusted Surfpool check: argv[0] must be the named binary itself (same
// device and inode), found as the command would find it; --surfpool refuses
// anything else, the config key silently does not apply.
#include "oms/core/trusted_surfpool.hpp"

#include "oms/core/error.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

using namespace oms::core;
using oms::test::TempDir;
using oms::test::write_file;

namespace {

std::string executable(const std::string& path, const std::string& text) {
    write_file(path, text);
    chmod(path.c_str(), 0755);
    return path;
}

}  // namespace

TEST_CASE("trusted surfpool: only argv[0] resolving to the very file is trusted") {
    TempDir dir("oms-surfpool");
    const std::string bin = dir / "bin", other = dir / "other";
    const std::string surfpool = executable(bin + "/surfpool", "#!/bin/sh\n");
    const std::string copy = executable(other + "/surfpool", "#!/bin/sh\n");  // same bytes, another file
    const std::string script = executable(bin + "/start", "#!/bin/sh\nexec " + surfpool + "\n");
    std::filesystem::create_symlink(surfpool, bin + "/sp-link");
    REQUIRE(link(surfpool.c_str(), (bin + "/sp-hard").c_str()) == 0);
    const std::optional<std::string> given = surfpool;
    const std::string real = *resolve_command(surfpool, "", "/");

    // Positives: by path, by name on PATH, through a symlink, a hard link.
    CHECK(trusted_surfpool_for(given, std::nullopt, {surfpool, "start"}, "", "/") == real);
    CHECK(trusted_surfpool_for(given, std::nullopt, {"surfpool"}, bin + ":" + other, "/") == real);
    CHECK(trusted_surfpool_for(given, std::nullopt, {"sp-link"}, bin, "/") == real);
    CHECK(trusted_surfpool_for(given, std::nullopt, {"./bin/sp-hard"}, "", dir.path()) == real);

    // --surfpool with anything else: refused (the copy first on PATH, the
    // copy by path, a script that execs it, a shell, a missing command).
    for (const std::vector<std::string>& argv :
         {std::vector<std::string>{"surfpool"}, {copy}, {script}, {"sh", "-c", surfpool}, {"no-such-thing"}}) {
        INFO(argv[0]);
        CHECK_THROWS_AS(trusted_surfpool_for(given, std::nullopt, argv, other + ":" + bin + ":/bin:/usr/bin", "/"),
                        UserError);
    }
    // A --surfpool that is no executable file is refused too.
    CHECK_THROWS_AS(trusted_surfpool_for(std::string(dir / "missing"), std::nullopt, {surfpool}, "", "/"), UserError);

    // The config key: trusted when argv[0] is the file, an ordinary run otherwise.
    CHECK(trusted_surfpool_for(std::nullopt, surfpool, {surfpool}, "", "/") == real);
    CHECK(trusted_surfpool_for(std::nullopt, surfpool, {copy}, "", "/").empty());
    CHECK(trusted_surfpool_for(std::nullopt, surfpool, {script}, "", "/").empty());
    CHECK(trusted_surfpool_for(std::nullopt, std::nullopt, {surfpool}, "", "/").empty());

    // After policy assembly, the command's own PATH decides again.
    CHECK_NOTHROW(confirm_trusted_surfpool(real, {"surfpool"}, {"PATH=" + bin}, "/"));
    CHECK_THROWS_AS(confirm_trusted_surfpool(real, {"surfpool"}, {"PATH=" + other + ":" + bin}, "/"), UserError);
    CHECK_NOTHROW(confirm_trusted_surfpool("", {"anything"}, {}, "/"));
}
