#include "engine/encoder_worker.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/errors.hpp"

namespace ladder::engine {

EncoderWorker::EncoderWorker(gpu::GpuPool& pool, ChunkScheduler& scheduler, std::vector<RungRuntime>& rungs,
                             ProgressSink& progress, std::chrono::steady_clock::time_point job_start)
    : pool_(pool), scheduler_(scheduler), rungs_(rungs), progress_(progress), job_start_(job_start) {}

double EncoderWorker::since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - job_start_).count();
}

void EncoderWorker::run(std::stop_token stop) {
    auto lease = pool_.claim(gpu::ClaimPriority::primary, stop);
    if (!lease) return;
    while (auto raw = scheduler_.next(stop)) {
        RungRuntime& r = rungs_[static_cast<std::size_t>(raw->rung)];
        const double started = since_start();
        EncodedChunk chunk = make_encoder_backend(lease->slot(), r.settings)->encode(*raw, stop);
        chunk.start_seconds = started;
        chunk.end_seconds = since_start();
        raw.reset();  // the raw frames are no longer needed

        auto verdict = r.invariant->check(chunk);
        if (!verdict.accepted)
            throw RunError(fmt::format("rung {}: chunk {} from {} does not match the rung's AV1 sequence header "
                                       "({} differ)",
                                       r.rung.name, chunk.index, chunk.slot_label, fmt::join(verdict.differences, ", ")));
        ChunkDone done;
        done.rung = chunk.rung;
        done.rung_name = r.rung.name;
        done.chunk = chunk.index;
        done.frames = chunk.frame_count;
        done.bytes = chunk.bytes;
        done.slot = chunk.slot_label;
        done.encode_seconds = chunk.end_seconds - chunk.start_seconds;
        progress_.chunk_done(done);
        r.finalizer->deliver(std::move(chunk));
    }
}

}  // namespace ladder::engine
