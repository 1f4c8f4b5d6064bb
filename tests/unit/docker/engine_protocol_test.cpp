// The Engine API plumbing that needs no daemon: JSON reading and quoting,
// stream demultiplexing, and the HTTP client against a fake daemon.
#include "daemon.hpp"
#include "engine_client.hpp"
#include "json.hpp"
#include "stream_pump.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <thread>

using namespace oms::docker;

namespace {

std::string drain(int fd) {
    std::string out;
    char buf[256];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
}

std::string frame(char stream, const std::string& payload) {
    std::string header(8, '\0');
    header[0] = stream;
    header[6] = static_cast<char>((payload.size() >> 8) & 0xff);
    header[7] = static_cast<char>(payload.size() & 0xff);
    return header + payload;
}

// A one-shot unix-socket server replying `reply` to the first request.
class FakeDaemon {
public:
    FakeDaemon(const std::string& path, std::string reply) : reply_(std::move(reply)) {
        fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
        REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        REQUIRE(listen(fd_, 1) == 0);
        thread_ = std::thread([this] {
            int client = accept(fd_, nullptr, nullptr);
            char buf[4096];
            std::string req;
            while (req.find("\r\n\r\n") == std::string::npos) {
                ssize_t n = read(client, buf, sizeof buf);
                if (n <= 0) break;
                req.append(buf, static_cast<size_t>(n));
            }
            request = req;
            (void)!write(client, reply_.data(), reply_.size());
            close(client);
        });
    }
    ~FakeDaemon() {
        thread_.join();
        close(fd_);
    }
    std::string request;

private:
    int fd_;
    std::string reply_;
    std::thread thread_;
};

}  // namespace

TEST_CASE("json: parses the replies the backend reads") {
    auto v = json::parse(R"({"Id":"abc","ExitCode":137,"Running":false,"Pid":0,"Labels":{"a":"b"},"L":[1,"x",null,true]})");
    CHECK(json::text_or(json::member(v, "Id"), "") == "abc");
    CHECK(json::integer_or(json::member(v, "ExitCode"), -1) == 137);
    CHECK(json::flag(json::member(v, "Running")) == false);
    CHECK(json::text_or(json::member(json::member(v, "Labels"), "a"), "") == "b");
    CHECK(json::member(v, "L").size() == 4);
    CHECK(json::flag(json::member(v, "L")[3]));
    CHECK(json::member(v, "missing").is_null());
    CHECK(json::member(json::member(v, "Id"), "x").is_null());  // a member of a string reads as null
    CHECK(json::text_or(json::member(v, "ExitCode"), "none") == "none");  // a mistyped member reads as the fallback
    CHECK(json::integer_or(json::member(v, "Id"), -1) == -1);
    CHECK(json::parse(R"("a\"b\\c\u00e9\n")").get<std::string>() == "a\"b\\c\xc3\xa9\n");
    CHECK_THROWS_AS(json::parse("{\"a\":}"), std::runtime_error);
    CHECK_THROWS_AS(json::parse("[1,2"), std::runtime_error);
    CHECK_THROWS_AS(json::parse("{} x"), std::runtime_error);
}

TEST_CASE("json: request bodies escape quotes, backslashes and control bytes, and refuse invalid UTF-8") {
    CHECK(json::body("a\"b\\c\n\x01") == "\"a\\\"b\\\\c\\n\\u0001\"");
    CHECK(json::body(std::vector<std::string>{"x", "y z"}) == "[\"x\",\"y z\"]");
    CHECK(json::body(json::Value::array()) == "[]");
    CHECK(json::body({{"Cmd", std::vector<std::string>{"caf\xc3\xa9"}}}) == "{\"Cmd\":[\"caf\xc3\xa9\"]}");  // positive control
    CHECK_THROWS_WITH(json::body({{"Cmd", std::vector<std::string>{"bad\xff"}}}), Catch::Contains("not valid UTF-8"));
}

TEST_CASE("frames: stdout and stderr are split, also across partial reads") {
    int out[2], err[2];
    REQUIRE(pipe(out) == 0);
    REQUIRE(pipe(err) == 0);
    std::string stream = frame(1, "hello ") + frame(2, "oops\n") + frame(1, "world\n");
    {
        FrameDemuxer demux(out[1], err[1]);
        for (char c : stream) demux.feed(&c, 1);  // worst case: one byte at a time
        CHECK(demux.idle());
    }
    close(out[1]);
    close(err[1]);
    CHECK(drain(out[0]) == "hello world\n");
    CHECK(drain(err[0]) == "oops\n");
    close(out[0]);
    close(err[0]);
}

TEST_CASE("http: a chunked reply is decoded; the request names the API version") {
    oms::test::TempDir dir("oms-docker-http");
    std::string path = dir / "d.sock";
    FakeDaemon daemon(path, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n3\r\n 1}\r\n0\r\n\r\n");
    HttpResponse r = EngineClient(path, 2000).request("GET", "/version");
    CHECK(r.status == 200);
    CHECK(r.body == "{\"a\": 1}");
    CHECK(daemon.request.rfind("GET /v1.41/version HTTP/1.1\r\n", 0) == 0);
}

TEST_CASE("http: an error reply carries the daemon's message") {
    oms::test::TempDir dir("oms-docker-http");
    std::string path = dir / "d.sock";
    std::string body = "{\"message\":\"No such container: x\"}";
    FakeDaemon daemon(path, "HTTP/1.1 404 Not Found\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
    HttpResponse r = EngineClient(path, 2000).request("POST", "/containers/x/exec", "{}");
    CHECK(r.status == 404);
    CHECK(error_message(r) == "No such container: x");
    CHECK(daemon.request.find("Content-Type: application/json\r\nContent-Length: 2\r\n") != std::string::npos);
}

TEST_CASE("http: the daemon's version comes from the ping headers") {
    oms::test::TempDir dir("oms-docker-http");
    std::string path = dir / "d.sock";
    FakeDaemon daemon(path, "HTTP/1.1 200 OK\r\nApi-Version: 1.41\r\nServer: Docker/20.10.24+dfsg1 (linux)\r\n"
                            "Content-Length: 2\r\n\r\nOK");
    DaemonVersion v = daemon_version(EngineClient(path, 2000));
    CHECK(v.version == "20.10.24+dfsg1");
    CHECK(v.api_version == "1.41");
    CHECK(daemon.request.rfind("GET /v1.41/_ping HTTP/1.1\r\n", 0) == 0);
}

TEST_CASE("http: an absent daemon is a clear error") {
    CHECK_THROWS_WITH(EngineClient("/nonexistent/docker.sock", 500).request("GET", "/version"),
                      Catch::StartsWith("cannot reach the Docker daemon at unix:///nonexistent/docker.sock"));
}
