// The wire format between the docker backend (on the host) and
// oms-docker-runner (inside a warm container), over a unix socket in a folder
// bind-mounted into the container. Shared by both sides.
//
// Request (host -> runner), one sendmsg carrying the command's three
// descriptors (stdin, stdout, stderr) as SCM_RIGHTS, then the rest:
//   u32 magic, u32 payload length, payload = NUL-terminated strings:
//   cwd, argc, argv..., envc, env... (counts as decimal text)
//   then, optionally, kReportLookups: send this command's refused lookups
//   (an older runner ignores it and sends none), and after it, optionally,
//   kReportUntraced: send a name whose asker was not found as an untraced
//   lookup frame (an older runner sends it as a lookup frame).
//   Then, optionally, kRunPorts followed by "P[,Q...]": this run's own
//   loopback ports (NET_CONNECT_RUN_PORT, the egress proxy's), held for this
//   command alone. A request carrying them starts with kMagicRunPorts, which
//   an older runner refuses (it closes the connection: nothing runs, never a
//   command without its proxy); the runner refuses an option it does not know.
//   Before anything else the runner answers such a request with u32
//   kRunPortsHeld (each 127.0.0.1:P held in the container and relayed over
//   run_relay_socket_name(first port) in the socket folder until the command
//   ends) or u32 kRunPortsTaken (one could not be held: the command is not
//   started, the connection closes).
// Then any number of u32 signal numbers (host -> runner): forward to the command.
// Reply (runner -> host): u32 exit status (128+N when signal N ended it), or
// the connection closes early when the runner failed. Before it, when the
// request asked, any number of lookup frames: u32 kLookupFrame, u32 length
// (1 to kMaxLookupName), the name a process of this command asked of the
// container's resolver and was answered "no such host" (an exit status is
// never kLookupFrame: it is below 256), or untraced lookup frames, the same
// with u32 kUntracedLookupFrame: a name whose asker the runner could not
// find, told to every running command (it may be another's). Also, when the request asked and the
// container has no network but its loopback, address frames: u32
// kRouteFrame or kLoopbackFrame, u32 kAddressFrameSize, then u16 family
// (AF_INET or AF_INET6), u16 port (host order) and 16 bytes of address (the
// first 4 for AF_INET): where a process of this command connected
// (command_connects.hpp), refused for want of a route (off the loopback) or
// of a listener (a loopback port nothing listened on).
// Closing the connection before the reply kills the command.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace oms::docker::runner {

inline constexpr uint32_t kMagic = 0x6f6d7331;          // "oms1"
inline constexpr uint32_t kMagicRunPorts = 0x6f6d7332;  // "oms2": a request with kRunPorts
inline constexpr uint32_t kMaxPayload = 4u << 20;

// The Surfnet relay's unix socket, served by oms in the socket folder.
inline constexpr const char* kRelaySocketName = "relay.sock";
// The published ports' socket, served by the runner's helper
// (published_relay.hpp); oms connects to it for each connection to a
// published port of the host. A warm container's is in its socket folder
// (its runner gets the flag always: publishing is per run, the container is
// the task's); a one-shot container's socket folder is read-only to it, so
// a publishing run mounts a folder of its own at kPublishDirInContainer.
// Never longer than runner.sock, so it fits wherever the runner's socket does;
// a one-shot run's folder for it ("NAME.pub") is shorter than its relay
// folder ("NAME.relay") and the socket's name than life.sock's.
inline constexpr const char* kPublishSocketName = "pub.sock";
inline constexpr const char* kPublishDirInContainer = "/.oms/publish";
// The runner's flag for that helper, followed by the socket's path in the container.
inline constexpr const char* kPublishRelayFlag = "--publish-relay=";

inline constexpr const char* kReportLookups = "report-lookups";
inline constexpr const char* kReportUntraced = "report-untraced";
inline constexpr const char* kRunPorts = "run-ports=";
inline constexpr uint32_t kRunPortsHeld = 0x6f6d7348;   // "omsH"
inline constexpr uint32_t kRunPortsTaken = 0x6f6d7354;  // "omsT"
// A run's own relay socket, served by that run's oms alone: named after the
// run's first own port, which no other live run has (oms's proxy holds it
// on the host), so two runs never meet on one socket. "r43819.sock": never
// longer than "runner.sock", so it fits wherever the runner's socket does.
inline std::string run_relay_socket_name(uint16_t port) { return "r" + std::to_string(port) + ".sock"; }
inline constexpr uint32_t kLookupFrame = 0x6f6d734c;          // "omsL"
inline constexpr uint32_t kUntracedLookupFrame = 0x6f6d7355;  // "omsU"
inline constexpr uint32_t kMaxLookupName = 253;
inline constexpr uint32_t kRouteFrame = 0x6f6d7352;     // "omsR"
inline constexpr uint32_t kLoopbackFrame = 0x6f6d7350;  // "omsP"
inline constexpr uint32_t kAddressFrameSize = 20;
// Lookup frames per command: names traced to it, and names whose asker was
// not found (told to every command), each bound on its own, so that another
// command's unfound names cannot use up this command's room for its own.
inline constexpr size_t kMaxTracedLookups = 1000;
inline constexpr size_t kMaxUntracedLookups = 100;

// The container's resolver's refusals, served by a one-shot run's oms in the
// socket folder: a datagram socket, one refusal_log line per datagram
// (oms/refusal_log.hpp; resolver_reports.hpp on the host). The one-shot
// runner sends its command's refused connects there too, as lines of source
// kRouteSource (off the loopback) or kLoopbackSource with address and port.
inline constexpr const char* kLookupReportSocketName = "lookups.sock";
inline constexpr const char* kRouteSource = "route";
inline constexpr const char* kLoopbackSource = "loopback";

}  // namespace oms::docker::runner
