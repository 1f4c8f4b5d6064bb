// oms mcp with hand-written JSON: the protocol's error paths (never a
// crash, always the JSON-RPC error code), version negotiation, and stdout
// holding nothing but protocol messages.
#include "../landlock/test_support.hpp"
#include "agent_world.hpp"
#include "mcp_session.hpp"

#include <unistd.h>

using namespace oms::test;
using nlohmann::json;

namespace {

std::vector<std::string> mcp_argv(const World& world) {
    return {oms_binary(), "mcp", "--worktree", world.work};
}

// The server with OMS_LOG=debug: even its most talkative logging must stay off stdout.
McpSession start_server(const World& world) {
    std::vector<std::string> env = oms_world_env(world);
    env.push_back("OMS_LOG=debug");
    return McpSession(mcp_argv(world), env, world.work);
}

int error_code(const std::optional<json>& response) {
    INFO((response ? response->dump() : std::string("no response")));
    REQUIRE(response);
    REQUIRE(response->contains("error"));
    return (*response)["error"]["code"];
}

}  // namespace

TEST_CASE("oms mcp answers bad messages with JSON-RPC errors", "[agents][mcp]") {
    World w;
    McpSession server = start_server(w);

    server.send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");  // cut short
    auto response = server.next();
    CHECK(error_code(response) == -32700);
    CHECK((*response)["id"].is_null());

    server.send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}});  // before initialize
    response = server.next();
    CHECK(error_code(response) == -32600);
    CHECK((*response)["id"] == 2);

    server.send({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "ping"}});  // ping is fine before initialize
    response = server.next();
    REQUIRE(response);
    CHECK((*response)["id"] == 3);
    CHECK((*response)["result"] == json::object());

    server.send({{"jsonrpc", "2.0"}, {"id", 4}, {"method", "initialize"}, {"params", {{"capabilities", json::object()}}}});
    CHECK(error_code(server.next()) == -32602);  // no protocolVersion

    const json init = server.initialize("2025-06-18");
    CHECK(init["result"]["protocolVersion"] == "2025-06-18");
    CHECK(init["result"]["serverInfo"]["name"] == "oms");
    CHECK(init["result"]["capabilities"].contains("tools"));

    for (const json& bad : {json{{"jsonrpc", "1.0"}, {"id", 5}, {"method", "ping"}},
                            json{{"jsonrpc", "2.0"}, {"id", 5}},
                            json{{"jsonrpc", "2.0"}, {"id", json::object()}, {"method", "ping"}},
                            json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}},
                            json::array({{{"jsonrpc", "2.0"}, {"id", 5}, {"method", "ping"}}}), json("text"), json(7)}) {
        server.send(bad);
        INFO(bad.dump());
        CHECK(error_code(server.next()) == -32600);
    }

    server.send({{"jsonrpc", "2.0"}, {"id", 6}, {"method", "resources/list"}});
    response = server.next();
    CHECK(error_code(response) == -32601);
    CHECK((*response)["id"] == 6);

    server.send({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "initialize"}, {"params", {{"protocolVersion", "2025-06-18"}}}});
    CHECK(error_code(server.next()) == -32600);  // a second initialize

    server.send({{"jsonrpc", "2.0"}, {"id", 8}, {"method", "tools/call"}, {"params", json::array()}});
    CHECK(error_code(server.next()) == -32602);
    for (const json& arguments : {json::object(), json{{"command", 42}}, json{{"command", "ls"}, {"shell", "bash"}},
                                  json{{"command", "ls"}, {"timeout_s", -1}}, json{{"command", "ls"}, {"env", "HOME"}},
                                  json{{"command", std::string("ls\0rm", 5)}}}) {
        server.send(call_request(9, "run", arguments));
        INFO(arguments.dump());
        CHECK(error_code(server.next()) == -32602);
    }
    server.send(call_request(10, "no-such-tool", json::object()));
    CHECK(error_code(server.next()) == -32602);
    server.send(call_request(11, "explain", {{"access", "smell"}, {"targets", {"x"}}}));
    CHECK(error_code(server.next()) == -32602);

    // Notifications get no answer, known or not: the next message answers the ping.
    server.send({{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}});
    server.send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 999}}}});
    server.send_line("");
    server.send({{"jsonrpc", "2.0"}, {"id", "last", }, {"method", "ping"}});
    response = server.next();
    REQUIRE(response);
    CHECK((*response)["id"] == "last");

    server.close_stdin();
    CHECK(server.wait_exit(std::chrono::seconds(10)) == 0);
    CHECK(server.stray_lines().empty());
}

TEST_CASE("oms mcp negotiates the protocol version", "[agents][mcp]") {
    World w;
    for (const auto& [asked, answered] : std::vector<std::pair<std::string, std::string>>{
             {"2024-11-05", "2024-11-05"}, {"2025-03-26", "2025-03-26"}, {"2025-06-18", "2025-06-18"},
             {"2025-11-25", "2025-11-25"}, {"2099-01-01", "2025-11-25"}, {"", "2025-11-25"}}) {
        McpSession server = start_server(w);
        CHECK(server.initialize(asked)["result"]["protocolVersion"] == answered);
    }
    // From 2025-11-25 on, arguments a tool cannot take are a result the model reads.
    McpSession server = start_server(w);
    server.initialize("2025-11-25");
    const json response = server.call(1, "run", {{"cwd", "."}});
    INFO(response.dump());
    CHECK(response["result"]["isError"] == true);
    CHECK(response["result"]["content"][0]["text"].get<std::string>().find("'command' is missing") != std::string::npos);
}

TEST_CASE("oms mcp lists run with its schemas, and explain and policy", "[agents][mcp]") {
    World w;
    McpSession server = start_server(w);
    server.initialize();
    server.send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}});
    const auto response = server.next();
    REQUIRE(response);
    std::map<std::string, json> tools;
    for (const json& tool : (*response)["result"]["tools"]) tools[tool["name"]] = tool;
    REQUIRE(tools.count("run"));
    CHECK(tools["run"]["inputSchema"]["required"] == json::array({"command"}));
    CHECK(tools["run"]["outputSchema"]["properties"].contains("exit_code"));
    CHECK(tools.count("explain"));
    CHECK(tools.count("policy"));
}

TEST_CASE("oms mcp runs commands confined and says how they ended", "[agents][mcp]") {
    require_landlock();
    World w;
    McpSession server = start_server(w);
    server.initialize();

    json response = server.call(1, "run", {{"command", "echo hi; echo to-stderr >&2"}});
    INFO(response.dump(2) << server.stderr_text());
    json result = response["result"];
    CHECK(result["isError"] == false);
    CHECK(result["structuredContent"]["exit_code"] == 0);
    CHECK(result["structuredContent"]["stdout"] == "hi\n");
    CHECK(result["structuredContent"]["stderr"] == "to-stderr\n");
    CHECK(result["content"][0]["text"].get<std::string>().find("hi\n") != std::string::npos);

    response = server.call(2, "run", {{"command", "exit 3"}});
    CHECK(response["result"]["isError"] == true);
    CHECK(response["result"]["structuredContent"]["exit_code"] == 3);

    response = server.call(3, "run", {{"command", "cat " + w.home + "/.ssh/id_rsa wallet-keypair.json; echo mcp > mcp.txt"}});
    INFO(response.dump(2));
    CHECK(response.dump().find(kSshKey) == std::string::npos);
    CHECK(response.dump().find(kKeypair) == std::string::npos);
    CHECK(read_file(w.work + "/mcp.txt") == "mcp\n");  // the worktree is writable

    // The run's refusals come back as oms's lines, apart from the command's stderr.
    response = server.call(31, "run", {{"command", "getent hosts example.com; echo own-line >&2"}});
    INFO(response.dump(2));
    CHECK(response["result"]["structuredContent"]["stderr"] == "own-line\n");
    CHECK(response["result"]["structuredContent"]["oms_messages"].dump().find("name lookup refused: example.com") !=
          std::string::npos);
    CHECK(response["result"]["content"][0]["text"].get<std::string>().find("oms: network:") != std::string::npos);

    response = server.call(4, "run", {{"command", "pwd"}, {"cwd", "nested"}});
    CHECK(response["result"]["structuredContent"]["stdout"] == w.work + "/nested\n");
    response = server.call(5, "run", {{"command", "pwd"}, {"cwd", w.home}});
    CHECK(response["result"]["isError"] == true);  // outside the worktree: oms run refuses, nothing runs
    CHECK(response["result"]["structuredContent"]["oms_messages"].dump().find("not inside the worktree") !=
          std::string::npos);

    response = server.call(6, "run", {{"command", "head -c 300000 /dev/zero | tr '\\0' x; echo; echo END"}});
    result = response["result"]["structuredContent"];
    CHECK(result["stdout_truncated"] == true);
    CHECK(result["stdout"].get<std::string>().size() < 70000);
    CHECK(result["stdout"].get<std::string>().find("bytes left out") != std::string::npos);
    CHECK(result["stdout"].get<std::string>().find("END\n") != std::string::npos);  // the end is kept

    response = server.call(7, "run", {{"command", "sleep 20"}, {"timeout_s", 1}});
    CHECK(response["result"]["isError"] == true);
    CHECK(response["result"]["structuredContent"]["timed_out"] == true);

    response = server.call(8, "run", {{"command", "printf '\\377\\376 bytes'"}});  // not UTF-8
    CHECK(response["result"]["structuredContent"]["stdout"].get<std::string>().find(" bytes") != std::string::npos);

    response = server.call(9, "explain", {{"access", "read"}, {"targets", {w.home + "/.ssh/id_rsa", "README"}}});
    INFO(response.dump(2));
    CHECK(response["result"]["isError"] == false);
    const std::string explained = response["result"]["content"][0]["text"];
    CHECK(explained.find("id_rsa") != std::string::npos);
    response = server.call(10, "policy", {{"command", "ls"}});
    CHECK(response["result"]["content"][0]["text"].get<std::string>().find(w.work) != std::string::npos);

    server.close_stdin();
    CHECK(server.wait_exit(std::chrono::seconds(10)) == 0);
    CHECK(server.stray_lines().empty());
}

TEST_CASE("oms mcp: progress, parallel calls, cancellation, the end of input", "[agents][mcp]") {
    require_landlock();
    World w;
    McpSession server = start_server(w);
    server.initialize();

    // Progress for a call that asked for it.
    json slow = call_request(1, "run", {{"command", "sleep 3; echo slept"}});
    slow["params"]["_meta"] = {{"progressToken", "tok-1"}};
    server.send(slow);
    json response = *server.next_response();
    CHECK(response["id"] == 1);
    CHECK(response["result"]["structuredContent"]["stdout"] == "slept\n");
    REQUIRE(!server.notifications.empty());
    for (const json& note : server.notifications) {
        CHECK(note["method"] == "notifications/progress");
        CHECK(note["params"]["progressToken"] == "tok-1");
    }

    // Two calls at once: the quick one answers first.
    server.send(call_request(2, "run", {{"command", "sleep 8; echo first-sent"}}));
    server.send(call_request(3, "run", {{"command", "echo second-sent"}}));
    CHECK((*server.next_response())["id"] == 3);
    CHECK((*server.next_response())["id"] == 2);

    // A cancelled call ends, gets no answer, and never does what it would have done later.
    const std::string marker = w.work + "/late-marker";
    server.send(call_request(4, "run", {{"command", "sleep 4; echo late > " + marker}}));
    usleep(1000 * 1000);
    server.send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 4}, {"reason", "test"}}}});
    server.send({{"jsonrpc", "2.0"}, {"id", 5}, {"method", "ping"}});
    CHECK((*server.next_response())["id"] == 5);
    CHECK(!server.next_response(std::chrono::seconds(6)));  // nothing for 4, ever
    CHECK(!exists(marker));
    CHECK(server.call(6, "run", {{"command", "echo after"}})["result"]["structuredContent"]["stdout"] == "after\n");

    // The client closes stdin: the server stops what runs and ends.
    server.send(call_request(7, "run", {{"command", "sleep 4; echo late > " + marker}}));
    usleep(1000 * 1000);
    server.close_stdin();
    CHECK(server.wait_exit(std::chrono::seconds(10)) == 0);
    usleep(5000 * 1000);
    CHECK(!exists(marker));
    CHECK(server.stray_lines().empty());
}

TEST_CASE("oms mcp refuses a worktree oms run would refuse", "[agents][mcp]") {
    World w;
    const ProcessResult r = run_process({oms_binary(), "mcp", "--worktree", w.home}, {oms_world_env(w), "", w.work, 30});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 77);
    CHECK(r.out.empty());
    CHECK(r.err.find("HOME") != std::string::npos);
}
