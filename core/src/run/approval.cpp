#include "oms/core/approval.hpp"

#include "oms/core/error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace oms::core {

namespace {

// Each argument single-quoted, control and non-ASCII bytes as \xNN: an
// argument must not be able to repaint the terminal and hide what is asked.
std::string shown(const std::vector<std::string>& argv) {
    std::string out;
    for (auto& arg : argv) {
        out += out.empty() ? "'" : " '";
        for (unsigned char c : arg) {
            if (c < 0x20 || c >= 0x7f) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "\\x%02x", c);
                out += hex;
            } else if (c == '\'') {
                out += "'\\''";
            } else {
                out += static_cast<char>(c);
            }
        }
        out += "'";
    }
    return out;
}

// Asks on /dev/tty (not stdin, which belongs to the command). nullopt: no terminal.
int ask_on_terminal(const std::string& question) {
    if (!isatty(STDIN_FILENO)) return -1;
    int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (tty < 0) return -1;
    ssize_t ignored = write(tty, question.data(), question.size());
    (void)ignored;
    char answer[16] = {0};
    ssize_t n = read(tty, answer, sizeof answer - 1);
    close(tty);
    return n > 0 && (answer[0] == 'y' || answer[0] == 'Y') ? 1 : 0;
}

}  // namespace

void require_approval(const std::vector<std::string>& argv, const std::string& backend_id, bool yes_flag) {
    if (yes_flag) return;
    int answer = ask_on_terminal("oms: run " + shown(argv) + " with backend " + backend_id +
                                 " (no sandbox; unrestricted network)? [y/N] ");
    if (answer == 1) return;
    if (answer == 0) throw UserError(kExitRefused, "not approved: the command did not run");
    throw UserError(kExitRefused, "refusing to run " + shown(argv) + ": backend '" + backend_id +
                                      "' has no sandbox, so every command needs approval; run on a terminal to "
                                      "answer the prompt, or pass --yes");
}

}  // namespace oms::core
