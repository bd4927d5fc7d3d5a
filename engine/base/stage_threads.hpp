#pragma once
// The running stages of a run, one thread each (the decode pump, each rung's
// scaler and finalizer, the HLS audio rendition, each encoder worker),
// started and joined as one group.
//
// The first real failure of any stage is kept and stops them all; later
// Cancelled exceptions (stages stopped because of it) do not replace it. A
// stage's cleanup (closing what it feeds) runs after its failure is
// recorded, so no consumer mistakes a failure for an end. A thread that
// cannot be started is the run's failure like any other. However the
// group's scope is left, it requests stop and joins every thread: whatever
// the stages use must be declared before the group.
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace ladder::engine {

// Starts a thread running body. Tests substitute one that fails.
using ThreadStarter = std::function<std::jthread(std::function<void()> body)>;

class StageThreads {
public:
    // external: a stop from outside (a signal) stops every stage.
    explicit StageThreads(std::stop_token external, ThreadStarter starter = {});
    ~StageThreads();
    StageThreads(const StageThreads&) = delete;
    StageThreads& operator=(const StageThreads&) = delete;

    // Starts a stage on its own thread unless the group is stopping (also
    // from a running stage, which join() then waits for too). When the
    // thread cannot be started, the failure (a RunError naming the stage) is
    // recorded, which stops the stages already running.
    void start(const std::string& name, std::function<void(std::stop_token)> body,
               std::function<void()> cleanup = {});
    // Waits for every stage to end.
    void join();

    std::stop_token token() const { return stop_.get_token(); }
    bool stopping() const { return stop_.stop_requested(); }
    // The first real failure so far (null: none).
    std::exception_ptr failure();

private:
    void record(std::exception_ptr failure);

    std::stop_source stop_;
    std::stop_callback<std::function<void()>> forward_stop_;
    ThreadStarter starter_;
    std::mutex mu_;  // the group's own: guards what follows; a leaf, not held to start or join a thread
    std::exception_ptr first_failure_;
    std::deque<std::jthread> threads_;  // stable: join() runs while stages start others
};

}  // namespace ladder::engine
