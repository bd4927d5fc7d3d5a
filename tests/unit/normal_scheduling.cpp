// SVT-AV1 1.4 switches the thread that opens an encoder to SCHED_FIFO 99
// when it runs as root (engine/encode/process/realtime_lockout.hpp). ladder
// forbids real-time scheduling at start-up; this test binary cannot (the
// lockout's own test needs a process that may still go real-time), and when
// all its tests run in one process (scripts/run-sanitizers.sh's shards) the
// main thread stays FIFO 99 after the first test that opened an encoder,
// and so does every thread a later test starts. Two such threads waiting
// on each other by spinning own both cores of a 2-core machine for ever.
// So after each test the main thread is put back to normal scheduling.
#include <gtest/gtest.h>

#include <sched.h>

#include <memory>

namespace {

class NormalSchedulingAfterEachTest : public testing::EmptyTestEventListener {
    void OnTestEnd(const testing::TestInfo&) override {
        if (::sched_getscheduler(0) == SCHED_OTHER) return;
        const sched_param normal{0};
        ::sched_setscheduler(0, SCHED_OTHER, &normal);
    }
};

// GoogleTest owns the listeners appended to it.
const bool kRegistered = [] {
    testing::UnitTest::GetInstance()->listeners().Append(std::make_unique<NormalSchedulingAfterEachTest>().release());
    return true;
}();

}  // namespace
