/* The floor of a namespace + Landlock launch on this machine: the least any
 * launcher built like oms's landlock backend must do, with no policy, no
 * config and no plugins. It starts a child sharing its memory (as oms does),
 * which enters a new mount and network namespace, makes the mount tree
 * private, makes MOUNTS bind mounts, sets no_new_privs, builds a Landlock
 * ruleset with RULES path rules and enforces it, then execs ARGV. The parent
 * waits and returns the child's status.
 *
 * Usage: launch-floor MOUNTS RULES PROGRAM [ARGS...]   (needs root)
 * Used by bench/landlock-launch.sh to show how far oms is from the floor. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Landlock ABI 1 UAPI, defined here so the file builds against old headers. */
struct ruleset_attr { uint64_t handled_access_fs; };
struct path_beneath_attr { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));
#define ACCESS_FS_ALL ((1ull << 13) - 1)
#define ACCESS_FS_READ ((1ull << 0) | (1ull << 2) | (1ull << 3)) /* execute, read_file, read_dir */
#define RULE_PATH_BENEATH 1

static int mounts, rules;
static char** command;
static char stack[1 << 16];

static void add_read_rule(int ruleset, const char* path) {
    struct path_beneath_attr rule = {ACCESS_FS_READ, open(path, O_PATH | O_CLOEXEC)};
    syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &rule, 0);
    close(rule.parent_fd);
}

static int child(void* unused) {
    (void)unused;
    if (unshare(CLONE_NEWNS | CLONE_NEWNET) != 0) _exit(120);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) _exit(121);
    for (int i = 0; i < mounts; ++i)
        if (mount("/usr", "/mnt", NULL, MS_BIND, NULL) != 0) _exit(122);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(123);
    struct ruleset_attr attr = {ACCESS_FS_ALL};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (ruleset < 0) _exit(124);
    for (int i = 1; i < rules; ++i) add_read_rule(ruleset, "/usr");
    add_read_rule(ruleset, "/");
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) _exit(125);
    execv(command[0], command);
    _exit(127);
}

int main(int argc, char** argv) {
    if (argc < 4) return 2;
    mounts = atoi(argv[1]);
    rules = atoi(argv[2]);
    command = argv + 3;
    pid_t pid = clone(child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return 126;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
