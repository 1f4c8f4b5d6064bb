// The loopback ports this run's command connected to lately, from the
// connect watch (off_loopback_watch.hpp): the runs of a task share one
// network (task_network.hpp), so the loopback watch of each sees the resets
// of all, and reports a refused port only when its own command asked for
// it (refused_connect_watch.hpp). A reset comes within moments of its
// connect, which the watch sees before the kernel does; kRememberedSeconds
// is ample. Without a connect watch (report_connects = false, or a kernel
// that refused the filter) every reset is reported, as in a network of the
// run's own. libc only, static storage: it runs in the init.
#pragma once
#include <stdint.h>

namespace oms::landlock::asked_ports {

inline constexpr int kRemembered = 64;
inline constexpr long kRememberedSeconds = 10;

// From now on, only the ports remembered count (the watch has a listener).
void start_filtering();
void remember(uint16_t port);
// Whether a refusal of `port` may be this run's to report.
bool may_be_ours(uint16_t port);

}  // namespace oms::landlock::asked_ports
