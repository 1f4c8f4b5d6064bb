// The Surfnet relay's host socket (docker item 7): oms gives the socket its
// mode where no command can swap a link in between bind and chmod. When oms
// is not root, the socket folder is the container's user's (the command's),
// so a racer keeps renaming a link to a host file of ours over relay.sock
// while oms serves it again and again; the file's mode must never change.
#include "host_relay.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

using namespace oms::docker;
using oms::test::TempDir;
using oms::test::write_file;

namespace {

mode_t mode_of(const std::string& path) {
    struct stat st;
    REQUIRE(lstat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

bool connects(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, path.c_str());
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    close(fd);
    return ok;
}

struct Layout {
    TempDir root{"oms-relay"};
    std::string folder = root / "docker/oms-run-x.relay";
    std::string socket = folder + "/relay.sock";
    std::string lock = root / "docker/oms-run-x.relay.lock";
    std::string victim = root / "victim";
    Layout() {
        write_file(folder + "/keep", "");
        write_file(victim, "host file\n");
        REQUIRE(chmod(victim.c_str(), 0600) == 0);
    }
};

}  // namespace

TEST_CASE("relay socket: served with mode 0666 at its path (control)") {
    Layout l;
    HostRelay relay(l.socket, l.lock, {8899});
    struct stat st;
    REQUIRE(lstat(l.socket.c_str(), &st) == 0);
    CHECK(S_ISSOCK(st.st_mode));
    CHECK((st.st_mode & 0777) == 0666);
    CHECK(connects(l.socket));
}

TEST_CASE("relay socket: a link raced in at relay.sock never makes oms change the link's target") {
    Layout l;
    std::atomic<bool> stop{false};
    // What a command in the container does: a link to a host file renamed over the socket's name, over and over.
    std::thread racer([&] {
        const std::string staged = l.folder + "/staged";
        while (!stop) {
            unlink(staged.c_str());
            if (symlink(l.victim.c_str(), staged.c_str()) == 0) rename(staged.c_str(), l.socket.c_str());
        }
    });
    int served = 0;
    for (int attempt = 0; attempt < 3000 && mode_of(l.victim) == 0600; ++attempt) {
        try {
            HostRelay relay(l.socket, l.lock, {8899});
            ++served;
        } catch (const std::exception&) {
            // the racer's link in the way of bind: refused, which is fine
        }
    }
    stop = true;
    racer.join();
    CHECK(served > 0);
    CHECK(mode_of(l.victim) == 0600);
    CHECK(oms::test::read_file(l.victim) == "host file\n");
}
