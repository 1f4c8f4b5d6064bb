#include "daemon.hpp"

#include "json.hpp"

#include <stdexcept>

namespace oms::docker {

namespace {

json::Value parsed(const HttpResponse& response, const std::string& what) {
    if (response.status / 100 != 2)
        throw std::runtime_error(what + " failed (HTTP " + std::to_string(response.status) + "): " +
                                 error_message(response));
    return json::parse(response.body);
}

}  // namespace

// /_ping rather than /version: the daemon answers /version by running its
// runtime and init binaries (tens of milliseconds), /_ping from memory.
DaemonVersion daemon_version(const EngineClient& client) {
    HttpResponse r = client.request("GET", "/_ping");
    if (r.status != 200) throw std::runtime_error("docker ping failed (HTTP " + std::to_string(r.status) + "): " + error_message(r));
    std::string server = r.header("Server");  // "Docker/20.10.24+dfsg1 (linux)"
    std::string version = server.rfind("Docker/", 0) == 0 ? server.substr(7, server.find(' ') - 7) : server;
    return DaemonVersion{version.empty() ? "?" : version, r.header("Api-Version").empty() ? "?" : r.header("Api-Version")};
}

bool image_present(const EngineClient& client, const std::string& reference) {
    HttpResponse r = client.request("GET", "/images/" + reference + "/json");
    if (r.status == 404) return false;
    parsed(r, "docker image inspect");
    return true;
}

std::vector<ContainerSummary> containers_with_label(const EngineClient& client, const std::string& label) {
    std::string filters = json::body({{"label", json::Value::array({label})}});
    json::Value list = parsed(client.request("GET", "/containers/json?all=1&filters=" + url_encode(filters)),
                              "docker ps");
    std::vector<ContainerSummary> out;
    if (!list.is_array()) return out;
    for (const json::Value& item : list) {
        ContainerSummary c{json::text_or(json::member(item, "Id"), ""), json::text_or(json::member(item, "State"), ""), {}};
        const json::Value& labels = json::member(item, "Labels");
        if (labels.is_object())
            for (const auto& [key, value] : labels.items()) c.labels[key] = json::text_or(value, "");
        out.push_back(std::move(c));
    }
    return out;
}

void remove_container(const EngineClient& client, const std::string& id_or_name) {
    HttpResponse r = client.request("DELETE", "/containers/" + url_encode(id_or_name) + "?force=1&v=1");
    if (r.status / 100 != 2 && r.status != 404 && r.status != 409)
        throw std::runtime_error("docker rm -f " + id_or_name + " failed (HTTP " + std::to_string(r.status) +
                                 "): " + error_message(r));
}

ExecCreated create_exec(const EngineClient& client, const std::string& container, const std::string& body) {
    HttpResponse r = client.request("POST", "/containers/" + url_encode(container) + "/exec", body);
    ExecCreated created;
    created.status = r.status;
    if (r.status == 201) created.id = json::text_or(json::member(json::parse(r.body), "Id"), "");
    else created.message = error_message(r);
    return created;
}

ExecState inspect_exec(const EngineClient& client, const std::string& exec_id) {
    json::Value v = parsed(client.request("GET", "/exec/" + exec_id + "/json"), "docker exec inspect");
    ExecState state;
    state.running = json::flag(json::member(v, "Running"));
    state.exit_code = static_cast<int>(json::integer_or(json::member(v, "ExitCode"), -1));
    state.pid = static_cast<long>(json::integer_or(json::member(v, "Pid"), 0));
    return state;
}

std::string missing_image_message(const std::string& reference, const std::string& archive,
                                  const std::string& manifest_path) {
    std::string how = archive.empty() ? "docker load -i <image.tar> (or: docker import <rootfs.tar>)"
                                      : "docker load -i " + archive;
    return "docker: the pinned image " + reference + " (from " + manifest_path +
           ") is not on this machine, and oms never pulls. Load it first: " + how;
}

}  // namespace oms::docker
