#pragma once
// One per rung, on its own thread: scales the pump's normalized frames to the
// rung's size and cuts them into chunks of N frames (the same frame numbers
// in every rung) on the rung's SegmentChunkQueue.
#include <cstdint>
#include <functional>
#include <stop_token>

#include "engine/decode_pump.hpp"
#include "engine/ladder_spec.hpp"
#include "engine/memory_budget.hpp"
#include "engine/segment_chunk_queue.hpp"

namespace ladder::engine {

class RungScaler {
public:
    // on_end(chunks, frames) runs once the last chunk is queued.
    // budget (may be null) is reserved for each chunk before it is queued.
    RungScaler(int rung_index, const Rung& rung, AVPixelFormat pix_fmt, int chunk_frames, FrameChannel& input,
               SegmentChunkQueue& output, std::function<void(int, std::int64_t)> on_end,
               MemoryBudget* budget = nullptr, std::function<bool(RawChunk&)> resume = {});

    // Frames that arrive in GPU memory (NVDEC) are scaled there with
    // scale_cuda; by default they are then downloaded for CPU encoders.
    // keep_on_gpu leaves them in GPU memory (NVENC on the same GPU: no copy).
    void keep_on_gpu(bool keep) { keep_on_gpu_ = keep; }
    // A shard's frames start at chunk `chunk` (frame `frame` of the source).
    void start_at(int chunk, std::int64_t frame) {
        chunks_ = chunk;
        frames_ = frame;
    }

    // Closes the queue after the last chunk. When it throws, the caller stops
    // the run before closing the queue.
    void run(std::stop_token stop);

private:
    av::FramePtr scale(av::FramePtr src);
    av::FramePtr scale_on_gpu(av::FramePtr src);
    void emit(std::stop_token stop);

    int rung_index_;
    Rung rung_;
    AVPixelFormat pix_fmt_;
    int chunk_frames_;
    FrameChannel& input_;
    SegmentChunkQueue& output_;
    std::function<void(int, std::int64_t)> on_end_;
    MemoryBudget* budget_;
    // Takes a chunk from the resume journal instead of queueing it for
    // encoding; true when it did.
    std::function<bool(RawChunk&)> resume_;
    av::SwsPtr sws_;
    std::unique_ptr<av::FilterChain> gpu_chain_;
    bool keep_on_gpu_ = false;
    RawChunk pending_;
    int chunks_ = 0;
    std::int64_t frames_ = 0;
};

}  // namespace ladder::engine
