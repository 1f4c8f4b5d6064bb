// Stands in for /usr/bin/sandbox-exec on a machine without Seatbelt. It
// confines nothing: it records what it was given (arguments, environment,
// the profile file and its mode, its signal state, its open descriptors, its
// cwd, its pid) next to the profile file, then runs the command the way
// sandbox-exec does (execvp with the same environment).
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

namespace {

void save(const std::string& path, const std::string& content) { std::ofstream(path, std::ios::binary) << content; }

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string signal_lines() {
    std::istringstream status(slurp("/proc/self/status"));
    std::string line, out;
    while (std::getline(status, line))
        if (line.rfind("SigBlk:", 0) == 0 || line.rfind("SigIgn:", 0) == 0) out += line + "\n";
    return out;
}

std::string open_descriptors() {
    std::string out;
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) return "unreadable";
    const int own = ::dirfd(dir);
    while (dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] == '.' || std::atoi(entry->d_name) == own) continue;
        out += std::string(entry->d_name) + "\n";
    }
    ::closedir(dir);
    return out;
}

std::string joined(char** items) {
    std::string out;
    for (; *items != nullptr; ++items) out += std::string(*items) + '\0';
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int i = 1;
    while (i + 1 < argc && std::strcmp(argv[i], "-D") == 0) i += 2;
    if (i + 2 > argc || std::strcmp(argv[i], "-f") != 0) {
        std::fprintf(stderr, "fake sandbox-exec: expected -D ... -f PROFILE COMMAND\n");
        return 99;
    }
    const std::string profile = argv[i + 1];
    struct stat info {};
    ::stat(profile.c_str(), &info);
    char cwd[4096] = {0};
    if (::getcwd(cwd, sizeof cwd) == nullptr) cwd[0] = '\0';
    save(profile + ".fds", open_descriptors());
    save(profile + ".args", joined(argv));
    save(profile + ".env", joined(environ));
    save(profile + ".copy", slurp(profile));
    save(profile + ".mode", std::to_string(info.st_mode & 07777));
    save(profile + ".signals", signal_lines());
    save(profile + ".cwd", cwd);
    save(profile + ".pid", std::to_string(::getpid()));
    ::execvp(argv[i + 2], argv + i + 2);
    std::perror("fake sandbox-exec: exec");
    return 127;
}
