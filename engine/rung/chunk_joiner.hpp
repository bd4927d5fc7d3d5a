#pragma once
// The chunks of one rung (or of the complexity analysis), put together from
// the scalers of the decode lanes. Lanes start and end at key frames, not at
// chunk boundaries, so the chunk a lane boundary falls in arrives in two
// pieces, one from each lane's scaler; the joiner hands it on whole, and the
// source's last chunk marked as the rung's end (RawChunk::ends_rung). It
// also says when the last lane's scaler is done (it closes the queue). When the
// lanes decode on different GPUs and the frames stay there, the whole chunk
// goes to the GPU that holds most of its frames: the others are copied
// there (through host memory), so one NVENC session can take it.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/chunk.hpp"

namespace ladder::engine {

class ChunkJoiner {
public:
    ChunkJoiner(std::string rung_name, int chunk_frames, int lanes);

    // A piece of chunk piece.index (frames [first_frame, first_frame +
    // size)); ends_source: its last frame is the source's last. Returns the
    // whole chunk once all its frames are here (the source's last carrying
    // ends_rung). Throws RunError when a frame comes twice.
    std::optional<RawChunk> add(RawChunk piece, bool ends_source);

    // A lane's scaler has handed on its last piece; reached_source_end: the
    // piece was the source's last. True once the last lane is done. Throws
    // RunError when, after the last lane, a chunk still misses frames or no
    // lane reached the source's end (its last chunk never came).
    bool lane_done(bool reached_source_end);
    // One more lane will hand on pieces (before it can end any other).
    void add_lane();

private:
    struct Pieces {
        std::vector<RawChunk> parts;  // by first_frame
        bool ends_source = false;
    };
    std::optional<RawChunk> take_if_whole(int index);

    std::string rung_name_;
    int chunk_frames_;
    std::mutex mu_;  // the rung's joiner's own: guards what follows; a leaf
    int lanes_left_;
    bool source_end_seen_ = false;
    std::map<int, Pieces> waiting_;
};

}  // namespace ladder::engine
