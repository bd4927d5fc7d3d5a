#pragma once
// What takes the decode lanes' frames: for each rung and lane a RungScaler,
// which the rung owns (its chunks to the dispatcher's queue, or to the
// rung's writer from the resume journal, joined by the rung's ChunkJoiner),
// and the complexity analysis's scaler per lane. A lane that starts while the run goes gets its
// scalers here too (add_lane() before the lane it splits can end, then
// connect()).
#include <functional>
#include <memory>
#include <vector>

#include "engine/output/audio_rendition_writer.hpp"
#include "engine/rung/chunk_analyzer.hpp"
#include "engine/schedule/chunk_dispatcher.hpp"
#include "engine/source/decode_lanes.hpp"
#include "engine/base/memory_budget.hpp"
#include "engine/rung/rung.hpp"
#include "engine/rung/rung.hpp"
#include "engine/base/stage_threads.hpp"

namespace ladder::engine {

struct LaneConsumerSetup {
    Rungs* rungs = nullptr;
    DecodeLanes* lanes = nullptr;
    ChunkDispatcher* dispatcher = nullptr;
    MemoryBudget* memory = nullptr;  // the host's budget for queued chunks
    // With keep_on_gpu: the budget of the GPU (CUDA ordinal) whose memory
    // holds a chunk.
    std::function<MemoryBudget*(int)> gpu_memory;
    ChunkAnalyzer* analyzer = nullptr;                // may be null; its channel is the lanes' last
    AVPixelFormat pix_fmt = AV_PIX_FMT_NONE;
    int chunk_frames = 0;
    bool keep_on_gpu = false;
};

class LaneConsumers {
public:
    // Connects the lanes there are now.
    explicit LaneConsumers(LaneConsumerSetup setup);

    // The scalers' stages (the analysis starts its own).
    void start(StageThreads& stages);
    // One more lane is coming: every joiner waits for it too.
    void add_lane();
    // Its scalers, started at once when the others are running.
    void connect(int lane);

private:
    void start_scaler(Rung& rung, std::size_t lane);

    LaneConsumerSetup setup_;
    StageThreads* stages_ = nullptr;  // once started
};

}  // namespace ladder::engine
