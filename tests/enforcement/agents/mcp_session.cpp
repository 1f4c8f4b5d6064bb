#include "mcp_session.hpp"

#include "temp_dir.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace oms::test {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<char*> c_list(const std::vector<std::string>& items) {
    std::vector<char*> out;
    for (auto& item : items) out.push_back(const_cast<char*>(item.c_str()));
    out.push_back(nullptr);
    return out;
}

}  // namespace

McpSession::McpSession(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& cwd) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) throw std::runtime_error("pipe failed");
    char pattern[] = "/tmp/oms-mcp-stderr-XXXXXX";
    const int err_fd = mkstemp(pattern);
    if (err_fd < 0) throw std::runtime_error("mkstemp failed");
    err_file_ = pattern;
    auto args = c_list(argv);
    auto envp = c_list(env);
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err_fd, 2);
        setpgid(0, 0);
        if (chdir(cwd.c_str()) != 0) _exit(126);
        execve(args[0], args.data(), envp.data());
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err_fd);
    in_ = in[1];
    out_ = out[0];
    signal(SIGPIPE, SIG_IGN);  // a server that ended must fail a write, not kill the test
}

McpSession::~McpSession() {
    if (in_ >= 0) close(in_);
    if (!wait_exit(std::chrono::seconds(10))) {
        kill(-pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
    unlink(err_file_.c_str());
}

void McpSession::send_line(const std::string& line) {
    const std::string text = line + "\n";
    for (size_t done = 0; done < text.size();) {
        const ssize_t n = write(in_, text.data() + done, text.size() - done);
        if (n <= 0) throw std::runtime_error("the server's stdin is closed");
        done += static_cast<size_t>(n);
    }
}

std::optional<nlohmann::json> McpSession::next(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
        const size_t newline = buffer_.find('\n');
        if (newline != std::string::npos) {
            const std::string line = buffer_.substr(0, newline);
            buffer_.erase(0, newline + 1);
            nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
            if (message.is_discarded() || !message.is_object() || message.value("jsonrpc", "") != "2.0") {
                stray_.push_back(line);
                continue;
            }
            return message;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0 || out_ < 0) return std::nullopt;
        pollfd fd{out_, POLLIN, 0};
        if (poll(&fd, 1, static_cast<int>(left.count())) <= 0) continue;
        char chunk[65536];
        const ssize_t n = read(out_, chunk, sizeof chunk);
        if (n <= 0) {
            close(out_);
            out_ = -1;
            continue;
        }
        buffer_.append(chunk, static_cast<size_t>(n));
    }
}

std::optional<nlohmann::json> McpSession::next_response(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        auto message = next(std::max(left, std::chrono::milliseconds(0)));
        if (!message || message->contains("id")) return message;
        notifications.push_back(*message);
    }
}

nlohmann::json McpSession::initialize(const std::string& version) {
    send({{"jsonrpc", "2.0"},
          {"id", 0},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", version},
            {"capabilities", nlohmann::json::object()},
            {"clientInfo", {{"name", "oms-test"}, {"version", "1"}}}}}});
    auto response = next_response();
    if (!response) throw std::runtime_error("no answer to initialize; stderr: " + stderr_text());
    send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return *response;
}

nlohmann::json McpSession::call(int id, const std::string& tool, const nlohmann::json& arguments) {
    send(call_request(id, tool, arguments));
    auto response = next_response();
    if (!response) throw std::runtime_error("no answer to tools/call " + tool + "; stderr: " + stderr_text());
    return *response;
}

void McpSession::close_stdin() {
    if (in_ >= 0) close(in_);
    in_ = -1;
}

std::optional<int> McpSession::wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (!exited_) {
        const pid_t done = waitpid(pid_, &status_, WNOHANG);
        if (done == pid_) {
            exited_ = true;
            break;
        }
        if (Clock::now() > deadline) return std::nullopt;
        usleep(50 * 1000);
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
}

std::string McpSession::stderr_text() const {
    try {
        return read_file(err_file_);
    } catch (const std::exception&) {
        return "";
    }
}

nlohmann::json call_request(int id, const std::string& tool, const nlohmann::json& arguments) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", arguments}}}};
}

}  // namespace oms::test
