// A stand-in session's pictures on their way through the engine. NVENC's
// encode call returns once a picture is queued; in synchronous mode
// nvEncLockBitstream waits until that picture is encoded (NVENC Video
// Encoder API Programming Guide, "Retrieving encoded output"), so a client
// may prepare and send its next pictures while the engine works. One
// thread per session runs the queued pictures in order (each holds an
// engine of the GPU for its time, EnginePace) and fills their bitstream
// buffers.
#pragma once

#include <ffnvcodec/nvEncodeAPI.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <stop_token>
#include <thread>

#include "tests/standin/aom_picture_encoder.hpp"
#include "tests/standin/nvenc_surface.hpp"

namespace ladder::standin {

class EngineQueue {
public:
    // Makes the picture (on the queue's thread, in order); its status and
    // bytes go into the bitstream buffer (an exception: NV_ENC_ERR_GENERIC
    // and its words).
    using Work = std::function<NVENCSTATUS(EncodedPicture&)>;

    EngineQueue() : thread_([this](std::stop_token stop) { run(stop); }) {}
    EngineQueue(const EngineQueue&) = delete;
    EngineQueue& operator=(const EngineQueue&) = delete;
    // The pictures queued are finished first: their buffers may still be read.
    ~EngineQueue() {
        wait_all();
        thread_.request_stop();
        work_.notify_all();
    }

    // Waits until every picture queued is encoded.
    void wait_all() {
        std::unique_lock lock(mu_);
        idle_.wait(lock, [this] { return jobs_.empty() && !running_; });
    }

    void push(Output& out, bool idr, Work work) {
        std::lock_guard lock(mu_);
        out.pending = true;
        jobs_.push_back({&out, idr, std::move(work)});
        work_.notify_all();
    }

    // Waits until the buffer's picture is encoded (nothing queued for it: at once).
    void wait_for(const Output& out) {
        std::unique_lock lock(mu_);
        idle_.wait(lock, [&out] { return !out.pending; });
    }

private:
    struct Job {
        Output* out;
        bool idr;
        Work work;
    };

    void run(std::stop_token stop) {
        std::unique_lock lock(mu_);
        while (true) {
            work_.wait(lock, stop, [this] { return !jobs_.empty(); });
            if (jobs_.empty()) return;  // stopped
            Job job = std::move(jobs_.front());
            jobs_.pop_front();
            running_ = true;
            lock.unlock();
            EncodedPicture pic;
            NVENCSTATUS status = NV_ENC_ERR_GENERIC;
            std::string error;
            try {
                status = job.work(pic);
            } catch (const std::exception& e) {
                error = e.what();
            }
            lock.lock();
            Output& out = *job.out;
            out.status = status;
            out.error = std::move(error);
            out.bytes = std::move(pic.bytes);
            out.qp = static_cast<std::uint32_t>(pic.qp);
            out.type = pic.key ? (job.idr ? NV_ENC_PIC_TYPE_IDR : NV_ENC_PIC_TYPE_I) : NV_ENC_PIC_TYPE_P;
            out.pending = false;
            running_ = false;
            idle_.notify_all();
        }
    }

    std::mutex mu_;
    std::condition_variable_any work_;  // a job was queued, or the stop
    std::condition_variable idle_;      // a job ended
    std::deque<Job> jobs_;
    bool running_ = false;
    std::jthread thread_;  // last: it stops and joins before the members above go
};

}  // namespace ladder::standin
