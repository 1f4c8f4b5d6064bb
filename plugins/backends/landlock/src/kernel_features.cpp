#include "kernel_features.hpp"

#include "landlock_uapi.hpp"

#include <sys/prctl.h>

#include <cerrno>

namespace oms::landlock {

namespace {

int query_abi() {
    long abi = uapi::create_ruleset(nullptr, 0, uapi::kCreateRulesetVersion);
    return abi < 0 ? 0 : static_cast<int>(abi);
}

bool seccomp_available() {
    // PR_GET_SECCOMP fails with EINVAL when the kernel has no seccomp at all.
    return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

}  // namespace

KernelFeatures features_for_abi(int abi, bool seccomp) {
    using namespace uapi;
    KernelFeatures f;
    f.abi = abi;
    f.seccomp = seccomp;
    if (abi >= 1)
        f.fs_rights = kFsExecute | kFsWriteFile | kFsReadFile | kFsReadDir | kFsRemoveDir | kFsRemoveFile |
                      kFsMakeChar | kFsMakeDir | kFsMakeReg | kFsMakeSock | kFsMakeFifo | kFsMakeBlock |
                      kFsMakeSym;
    if (abi >= 2) f.fs_rights |= kFsRefer;
    if (abi >= 3) f.fs_rights |= kFsTruncate;
    if (abi >= 4) f.net_rights = kNetBindTcp | kNetConnectTcp;
    if (abi >= 5) f.fs_rights |= kFsIoctlDev;
    if (abi >= 6) f.scopes = kScopeAbstractUnixSocket | kScopeSignal;
    return f;
}

KernelFeatures detect_features(int abi_cap) {
    int abi = query_abi();
    if (abi_cap > 0 && abi > abi_cap) abi = abi_cap;
    return features_for_abi(abi, seccomp_available());
}

std::string summary_line(const KernelFeatures& f) {
    if (f.abi == 0) return std::string("host (no Landlock in this kernel; ") + (f.seccomp ? "seccomp)" : "no seccomp)");
    std::string parts = "filesystem";
    if (f.has_tcp()) parts += ", TCP ports";
    if (f.has_scopes()) parts += ", scoped";
    std::string line = "host (landlock ABI " + std::to_string(f.abi) + ": " + parts;
    line += f.seccomp ? "; seccomp)" : "; no seccomp)";
    return line;
}

std::vector<std::string> missing_guarantees(const KernelFeatures& f) {
    std::vector<std::string> out;
    if (f.abi == 0) {
        out.push_back("Landlock is not enabled in this kernel: no filesystem or network confinement");
        return out;
    }
    if (!f.has_refer())
        out.push_back("Landlock ABI 2 (REFER): renaming or linking files across folders is refused everywhere");
    if (!f.has_truncate())
        out.push_back("Landlock ABI 3 (TRUNCATE): files outside the write roots can be truncated");
    if (!f.has_tcp())
        out.push_back("Landlock ABI 4 (TCP ports): TCP bind/connect are not filtered by port");
    if (!f.has_ioctl_dev())
        out.push_back("Landlock ABI 5 (IOCTL_DEV): ioctl on device files opened in the sandbox is not filtered");
    if (!f.has_scopes())
        out.push_back("Landlock ABI 6 (scopes): abstract unix sockets and signals can reach processes outside");
    if (!f.seccomp)
        out.push_back("seccomp: ptrace, io_uring, bpf, mount, keyctl and UDP/raw sockets are not refused");
    return out;
}

std::vector<std::string> unenforceable(const KernelFeatures& f) {
    std::vector<std::string> out;
    for (const std::string& gap : missing_guarantees(f))
        if (gap.find("(REFER)") == std::string::npos && gap.find("(IOCTL_DEV)") == std::string::npos)
            out.push_back(gap);
    return out;
}

}  // namespace oms::landlock
