#include "engine/encode/process/realtime_lockout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ladder::engine {

namespace {

// The kernel's interface, not libcap: one bit is all this needs, and libcap
// is not otherwise a dependency.
struct Capabilities {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};

    bool read() { return ::syscall(SYS_capget, &header, data) == 0; }
    bool write() { return ::syscall(SYS_capset, &header, data) == 0; }
    __user_cap_data_struct& sys_nice_word() { return data[CAP_TO_INDEX(CAP_SYS_NICE)]; }
};

constexpr __u32 kSysNice = CAP_TO_MASK(CAP_SYS_NICE);

bool realtime_policy(int policy) {
    policy &= ~SCHED_RESET_ON_FORK;
    return policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
}

// A ladder started real-time (chrt) would pass its policy on to every
// thread, encoders' included, whatever the capabilities say.
void leave_realtime() {
    if (!realtime_policy(::sched_getscheduler(0))) return;
    const sched_param normal{0};
    ::sched_setscheduler(0, SCHED_OTHER, &normal);
}

void drop_sys_nice() {
    // An exec as root gets its permitted set from the bounding set, so
    // without this an encoder process would start with CAP_SYS_NICE again.
    // It fails without CAP_SETPCAP; the encoder process then drops the
    // capability itself, in its own main().
    ::prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0);
    Capabilities caps;
    if (!caps.read()) return;
    auto& word = caps.sys_nice_word();
    // Out of permitted too, so nothing in the process can raise it again;
    // out of inheritable, so no exec can inherit it (ambient follows).
    word.effective &= ~kSysNice;
    word.permitted &= ~kSysNice;
    word.inheritable &= ~kSysNice;
    caps.write();
}

// What keeps a process without CAP_SYS_NICE from real-time priorities. The
// hard limit too, so that the soft one cannot be raised again.
void zero_rtprio_limit() {
    const rlimit none{0, 0};
    ::setrlimit(RLIMIT_RTPRIO, &none);
}

std::string limit_text(rlim_t v) { return v == RLIM_INFINITY ? "unlimited" : fmt::format("{}", v); }

}  // namespace

void forbid_realtime_scheduling() {
    leave_realtime();  // first: leaving SCHED_DEADLINE may need CAP_SYS_NICE
    drop_sys_nice();
    zero_rtprio_limit();
}

std::string realtime_scheduling_allowed() {
    std::vector<std::string> reasons;
    Capabilities caps;
    if (!caps.read())
        reasons.push_back(fmt::format("its capabilities cannot be read ({})", std::strerror(errno)));
    else if (caps.sys_nice_word().effective & kSysNice)
        reasons.push_back("it has CAP_SYS_NICE");
    rlimit limit{};
    if (::getrlimit(RLIMIT_RTPRIO, &limit) == 0 && (limit.rlim_cur != 0 || limit.rlim_max != 0))
        reasons.push_back(fmt::format("its RLIMIT_RTPRIO is {} (hard {})", limit_text(limit.rlim_cur),
                                      limit_text(limit.rlim_max)));
    if (realtime_policy(::sched_getscheduler(0))) reasons.push_back("it runs real-time already");
    return fmt::format("{}", fmt::join(reasons, "; "));
}

}  // namespace ladder::engine
