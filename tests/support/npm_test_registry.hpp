// A one-package npm registry for the egress tests, on the host's 127.0.0.1:
// tiny-pkg 1.0.0 (package/{package.json,index.js,cli.js}: a module and a
// program that prints it, for npx; packed with the host's
// tar) served as its packument and tarball by a StaticHttpServer, the
// tarball's URL under the name the test pins. write_project() lays out a
// project that depends on it and whose .npmrc points npm at the registry.
#pragma once
#include "static_http_server.hpp"

#include <memory>
#include <string>

namespace oms::test {

class NpmTestRegistry {
public:
    // `scratch`: a folder the tarball is built in; `name`: how the sandbox
    // reaches the registry (the name pinned to 127.0.0.1).
    NpmTestRegistry(const std::string& scratch, const std::string& name);

    uint16_t port() const { return server_->port(); }
    const StaticHttpServer& server() const { return *server_; }
    // "http://NAME:PORT"
    const std::string& base() const { return base_; }
    // The request line StaticHttpServer records for the tarball's download.
    std::string tarball_request() const;
    // package.json depending on tiny-pkg 1.0.0 and the .npmrc, in `dir`.
    void write_project(const std::string& dir) const;

    static constexpr const char* kIndexJs = "module.exports = 'TINY-PKG-LOADED';\n";

private:
    std::string name_, base_;
    std::unique_ptr<StaticHttpServer> server_;
};

}  // namespace oms::test
