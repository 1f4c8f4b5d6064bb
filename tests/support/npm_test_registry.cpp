#include "npm_test_registry.hpp"

#include "process.hpp"
#include "temp_dir.hpp"

#include <map>
#include <stdexcept>

namespace oms::test {

namespace {

const char* const kTarballPath = "/tiny-pkg/-/tiny-pkg-1.0.0.tgz";

// The tarball npm unpacks and its sha1 (the packument's dist.shasum).
std::pair<std::string, std::string> pack(const std::string& scratch) {
    const std::string source = scratch + "/tiny-src";
    write_file(source + "/package/package.json",
               R"({"name":"tiny-pkg","version":"1.0.0","main":"index.js","bin":{"tiny-pkg":"cli.js"}})");
    write_file(source + "/package/index.js", NpmTestRegistry::kIndexJs);
    write_file(source + "/package/cli.js", "#!/usr/bin/env node\nconsole.log(require('./index.js'));\n");
    if (run_process({"/bin/sh", "-c", "tar -C '" + source + "' -czf '" + source + "/tiny.tgz' package"}).exit_code != 0)
        throw std::runtime_error("tar could not pack the test package (tar and gzip are needed on PATH)");
    const ProcessResult sum = run_process({"/bin/sh", "-c", "sha1sum '" + source + "/tiny.tgz'"});
    if (sum.exit_code != 0 || sum.out.size() < 40) throw std::runtime_error("sha1sum failed on the test package");
    return {read_file(source + "/tiny.tgz"), sum.out.substr(0, 40)};
}

}  // namespace

NpmTestRegistry::NpmTestRegistry(const std::string& scratch, const std::string& name) : name_(name) {
    auto [tarball, sha1] = pack(scratch);
    server_ = std::make_unique<StaticHttpServer>(std::map<std::string, std::string>{{kTarballPath, tarball}});
    base_ = "http://" + name + ":" + std::to_string(server_->port());
    server_->add("/tiny-pkg", R"({"name":"tiny-pkg","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"tiny-pkg",)"
                              R"("version":"1.0.0","bin":{"tiny-pkg":"cli.js"},"dist":{"tarball":")" + base_ + kTarballPath + R"(",)"
                              R"("shasum":")" + sha1 + R"("}}}})");
}

std::string NpmTestRegistry::tarball_request() const {
    return std::string("GET ") + kTarballPath + " host=" + name_ + ":" + std::to_string(port());
}

void NpmTestRegistry::write_project(const std::string& dir) const {
    write_file(dir + "/package.json", R"({"name":"t","version":"1.0.0","dependencies":{"tiny-pkg":"1.0.0"}})");
    write_file(dir + "/.npmrc", "registry=" + base_ + "/\naudit=false\nfund=false\nupdate-notifier=false\n");
}

}  // namespace oms::test
