#pragma once
// One per rung and decode lane, on its own thread: scales the lane's
// normalized frames to the rung's size and cuts them into chunks of N frames
// by frame number (chunk k = frames [kN, (k+1)N), the same in every rung) on
// the rung's queue (a ChunkInlet). A chunk a lane boundary splits goes through
// the rung's ChunkJoiner, which the lanes' scalers share.
#include <cstdint>
#include <functional>
#include <stop_token>

#include "engine/rung/chunk_joiner.hpp"
#include "engine/source/decode_pump.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/base/memory_budget.hpp"
#include "engine/schedule/segment_chunk_queue.hpp"

namespace ladder::engine {

class RungScaler {
public:
    // The rung's last chunk carries the rung's end (RawChunk::ends_rung);
    // the last lane's scaler to end then closes the queue. budget (may be
    // null) is reserved for each chunk before it is queued; while the scaler
    // has to wait for it, it tells output (ChunkInlet::waiting_for_memory).
    RungScaler(int rung_index, const RungSpec& rung, AVPixelFormat pix_fmt, int chunk_frames, FrameChannel& input,
               ChunkInlet& output, ChunkJoiner& joiner, MemoryBudget* budget = nullptr,
               std::function<bool(RawChunk&)> resume = {});

    // Frames that arrive in GPU memory (NVDEC) are scaled there with
    // scale_cuda; by default they are then downloaded for CPU encoders.
    // keep_on_gpu leaves them in GPU memory (NVENC on the same GPU: no copy):
    // gpu is the lane's GPU (CUDA ordinal), whose memory then holds the
    // chunks (RawChunk::gpu), reserved from gpu_budget(gpu) instead of the
    // host's budget.
    void keep_on_gpu(bool keep, int gpu = 0, std::function<MemoryBudget*(int)> gpu_budget = {}) {
        keep_on_gpu_ = keep;
        gpu_ = gpu;
        gpu_budget_ = std::move(gpu_budget);
    }
    // Whether this lane's frames end with the source's last (the last lane;
    // the default), asked when the lane's frames have all come.
    void ends_source(std::function<bool()> ends) { ends_source_ = std::move(ends); }
    void ends_source(bool ends) {
        ends_source_ = [ends] { return ends; };
    }

    // Closes the queue after the last lane's last chunk. When it throws, the
    // caller stops the run before closing the queue.
    void run(std::stop_token stop);

private:
    av::FramePtr scale(av::FramePtr src);
    av::FramePtr scale_on_gpu(av::FramePtr src);
    void emit(std::stop_token stop, bool last);
    void queue(RawChunk chunk, std::stop_token stop);

    int rung_index_;
    RungSpec rung_;
    AVPixelFormat pix_fmt_;
    int chunk_frames_;
    FrameChannel& input_;
    ChunkInlet& output_;
    ChunkJoiner& joiner_;
    MemoryBudget* budget_;
    // Takes a chunk from the resume journal instead of queueing it for
    // encoding; true when it did.
    std::function<bool(RawChunk&)> resume_;
    av::SwsPtr sws_;
    std::unique_ptr<av::FilterChain> gpu_chain_;
    int gpu_chain_width_ = 0;  // the size gpu_chain_ takes (NVDEC frames change size with the stream)
    int gpu_chain_height_ = 0;
    bool keep_on_gpu_ = false;
    int gpu_ = 0;
    std::function<MemoryBudget*(int)> gpu_budget_;
    std::function<bool()> ends_source_ = [] { return true; };
    bool last_ends_source_ = false;  // asked once the lane's last frame came
    RawChunk pending_;
    std::int64_t end_frame_ = 0;  // after the last frame seen
};

}  // namespace ladder::engine
