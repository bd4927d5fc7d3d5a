#pragma once
// SVT-AV1 (1.4.1, Debian 12's) makes threads real-time whenever it runs as
// root (geteuid() == 0): opening an encoder switches the calling thread to
// SCHED_FIFO priority 99, and every thread the encoder creates is set to the
// same right after it starts. It asks with pthread_setschedparam and carries
// on with a normal thread when the kernel refuses. Threads at the highest
// real-time priority leave ladder's own decoder and scalers, and every other
// process on the machine (a farm's node agent included), only what they do
// not use. So ladder takes real-time scheduling away from itself at start-up,
// before any encoder exists; a root process may ignore RLIMIT_RTPRIO
// (sched(7)), so the limit alone would not do.
#include <string>

namespace ladder::engine {

// Makes real-time scheduling (SCHED_FIFO, SCHED_RR, SCHED_DEADLINE)
// impossible for this process and the programs it starts: puts the calling
// thread back to SCHED_OTHER if it was started real-time, drops
// CAP_SYS_NICE from its capability sets (from the bounding set too where
// CAP_SETPCAP allows it, so that a root exec of /proc/self/exe does not get
// it back) and sets RLIMIT_RTPRIO to 0, soft and hard. Capabilities and the
// policy belong to the calling thread and are inherited by the threads it
// creates afterwards: call it first in main(), before any thread exists.
void forbid_realtime_scheduling();

// Why the calling thread could still make itself real-time ("" when it
// cannot): for a warning when forbid_realtime_scheduling() could not do its
// work (e.g. a seccomp filter refused capset).
std::string realtime_scheduling_allowed();

}  // namespace ladder::engine
