#include "name_resolution.hpp"

#include "mount_option.hpp"
#include "state_folder.hpp"

#include <oms/dns_responder.hpp>
#include <oms/sdk.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace oms::docker {

namespace {

constexpr const char* kResolvConfInContainer = "/etc/resolv.conf";

// What the file holds now (empty when it is missing, not a plain file, or a link).
std::string current_text(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return "";
    std::string text;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0644 && st.st_size < 4096) {
        char buffer[4096];
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n > 0) text.assign(buffer, static_cast<size_t>(n));
    }
    close(fd);
    return text;
}

}  // namespace

bool answers_dns_itself(const Settings& settings) { return settings.network == "none"; }

std::string resolver_line(const Settings& settings) {
    if (answers_dns_itself(settings))
        return "# names: /etc/resolv.conf names 127.0.0.1, where the runner (--answer-dns) answers every lookup "
               "\"no such host\"; /etc/hosts answers first";
    return "# names: network " + settings.network + " keeps Docker's resolver";
}

std::string resolv_conf_file(const std::string& state_dir) { return state_dir + "/docker/resolv.conf"; }

void add_name_resolution(const Settings& settings, const RunInputs& in, ContainerPlan& plan) {
    if (!answers_dns_itself(settings)) return;
    if (in.state_dir.empty())
        throw sdk::Error(OMS_ERR_FAILED, "docker: the container's resolver needs oms's state folder (none given)");
    plan.flags.push_back(bind_mount_flag(resolv_conf_file(in.state_dir), kResolvConfInContainer, true));
    plan.runner_args.push_back(kAnswerDnsFlag);
    if (settings.report_connects) plan.runner_args.push_back(kWatchConnectsFlag);
}

void write_resolv_conf(const std::string& state_dir) {
    const std::string path = resolv_conf_file(state_dir);
    const std::string text = dns_responder::kSandboxResolvConf;
    docker_state_folder(state_dir, "the container's resolver");
    if (current_text(path) == text) return;
    const std::string fresh = path + ".new." + std::to_string(getpid());
    unlink(fresh.c_str());
    int fd = open(fresh.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool written = fd >= 0 && fchmod(fd, 0644) == 0 &&
                   write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (fd >= 0) close(fd);
    if (!written || rename(fresh.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        unlink(fresh.c_str());
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot write " + path + " (the container's resolv.conf): " + reason);
    }
}

}  // namespace oms::docker
