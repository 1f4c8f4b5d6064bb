// A warm container's refused lookups, each to the run of the command that
// asked. The resolver (a child of the runner) finds the asking process
// (lookup_askers.hpp) and sends it with the name over a datagram socket pair
// to the runner; the runner gives the name to that command's oms as a lookup
// frame on the command's connection (runner_protocol.hpp), once per name,
// within the bounds runner_protocol.hpp gives.
#pragma once
#include "command_connects.hpp"
#include "lookup_askers.hpp"

#include <sys/types.h>

#include <string>
#include <vector>

namespace oms::docker::runner {

struct AskerReport {
    AskerProcess asker;
    std::string name;
};

// The resolver's side: never blocks (a full queue drops the report).
void send_asker_report(int fd, const char* name, size_t length, const AskerProcess& asker);

// The runner's side: the next queued report, false when none is left.
bool receive_asker_report(int fd, AskerReport& report);

// What one command was already told.
struct CommandLookups {
    bool wanted = false;           // its oms asked (kReportLookups)
    bool untraced_frames = false;  // and takes untraced names apart (kReportUntraced)
    std::vector<std::string> sent;
    size_t untraced = 0;  // of them, names whose asker was not found
    RoutesTold routes;    // the refused destinations it was told of
};

// Sends `name` on `conn` as a lookup frame unless the command was told of it
// already or has had its bound: for names `traced` to it, or for names whose
// asker was not found (runner_protocol.hpp). A frame is dropped whole, never
// cut, when it does not fit at once or when the frames oms has not read yet
// fill half the socket's send buffer: the runner never waits for one
// command's oms, and the command's status always fits.
void tell_command(int conn, CommandLookups& told, const std::string& name, bool traced);

// Sends `call`'s refused destination on `conn` as a route frame (off the
// loopback) or a loopback frame, once per address and port, within
// RoutesTold's bound, and like a lookup frame never waiting.
void tell_command_refused(int conn, CommandLookups& told, const connect_watch::Call& call);

}  // namespace oms::docker::runner
