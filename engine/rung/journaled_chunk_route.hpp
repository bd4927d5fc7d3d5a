#pragma once
// --resume's route: a chunk that an interrupted run already journaled (the
// same frames, and it splices with the rung) goes from the rung's scaler
// straight to the rung's finalizer instead of to an encoder, through the
// rung's one way in (ChunkDelivery). In a shard, which has no finalizers,
// it simply stays in the journal.
#include <atomic>
#include <vector>

#include "engine/base/chunk.hpp"
#include "engine/output/chunk_journal.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/rung/rung_runtime.hpp"

namespace ladder::engine {

class JournaledChunkRoute {
public:
    JournaledChunkRoute(const ChunkJournal& journal, std::vector<RungRuntime>& rungs, ProgressSink& progress);

    // True when the journal had this chunk and it was delivered: the raw
    // frames need no encoding. Called from each rung's scaler thread.
    bool take(const RawChunk& raw);
    // Chunks delivered from the journal so far.
    int taken() const { return taken_.load(); }

private:
    const ChunkJournal& journal_;
    std::vector<RungRuntime>& rungs_;
    ProgressSink& progress_;
    std::atomic<int> taken_{0};
};

}  // namespace ladder::engine
