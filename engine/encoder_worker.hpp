#pragma once
// An encoder worker: holds a GpuLease for the whole run and encodes whatever
// chunk the scheduler hands it, checks it against its rung's codec contract
// and passes it to the rung's finalizer.
#include <chrono>
#include <stop_token>
#include <vector>

#include "engine/chunk_scheduler.hpp"
#include "engine/progress_sink.hpp"
#include "engine/rung_runtime.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::engine {

class EncoderWorker {
public:
    EncoderWorker(gpu::GpuPool& pool, ChunkScheduler& scheduler, std::vector<RungRuntime>& rungs,
                  ProgressSink& progress, std::chrono::steady_clock::time_point job_start);

    void run(std::stop_token stop);

private:
    double since_start() const;

    gpu::GpuPool& pool_;
    ChunkScheduler& scheduler_;
    std::vector<RungRuntime>& rungs_;
    ProgressSink& progress_;
    std::chrono::steady_clock::time_point job_start_;
};

}  // namespace ladder::engine
