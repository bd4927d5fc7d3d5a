#include "engine/base/stage_threads.hpp"

#include <fmt/format.h>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/thread_name.hpp"

extern "C" {
#include <libavutil/error.h>
}

namespace ladder::engine {

namespace {

std::jthread start_jthread(std::function<void()> body) { return std::jthread(std::move(body)); }

// A stage that ended because the run was stopped: a wait that woke on the
// stop, or libavformat giving up on an input for it (AVERROR_EXIT: an
// input opened after the stop).
bool is_cancellation(std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (const Cancelled&) {
        return true;
    } catch (const av::AvError& error) {
        return error.code() == AVERROR_EXIT;
    } catch (...) {
    }
    return false;
}

}  // namespace

StageThreads::StageThreads(std::stop_token external, ThreadStarter starter)
    : forward_stop_(std::move(external), [this] { stop_.request_stop(); }),
      starter_(starter ? std::move(starter) : ThreadStarter(start_jthread)) {}

StageThreads::~StageThreads() {
    stop_.request_stop();
    join();
}

void StageThreads::record(std::exception_ptr failure) {
    {
        std::lock_guard lock(mu_);
        if (!first_failure_ && !is_cancellation(failure)) first_failure_ = failure;
    }
    stop_.request_stop();
}

void StageThreads::start(const std::string& name, std::function<void(std::stop_token)> body,
                         std::function<void()> cleanup) {
    if (stop_.stop_requested()) return;
    auto run = [this, thread_name = stage_thread_name(name), body = std::move(body), cleanup = std::move(cleanup)] {
        name_this_thread(thread_name);
        try {
            body(stop_.get_token());
        } catch (...) {
            record(std::current_exception());
        }
        if (cleanup) cleanup();
    };
    // Declared out here so that, when keeping it fails, the thread is joined
    // only after the stop is requested (it waits on the group's stop, not
    // on its own).
    std::jthread thread;
    try {
        // Started without the lock: the new thread's failure path (record)
        // takes it.
        thread = starter_(std::move(run));
        std::lock_guard lock(mu_);
        threads_.push_back(std::move(thread));
    } catch (const std::exception& e) {
        record(std::make_exception_ptr(
            RunError(fmt::format("could not start the {} thread ({}): the machine is out of threads or memory; "
                                 "lower --cpu-slots or free resources and run again",
                                 name, e.what()))));
    }
}

// A stage may start others (a decode lane that starts later) before it
// ends: they are joined too.
void StageThreads::join() {
    for (std::size_t i = 0;; ++i) {
        std::jthread* thread = nullptr;
        {
            std::lock_guard lock(mu_);  // not held while joining: the stage may fail or start another
            if (i >= threads_.size()) return;
            thread = &threads_[i];
        }
        if (thread->joinable()) thread->join();
    }
}

std::exception_ptr StageThreads::failure() {
    std::lock_guard lock(mu_);
    return first_failure_;
}

}  // namespace ladder::engine
