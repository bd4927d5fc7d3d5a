#pragma once
// Room engine/output/: what a rung's encoded chunks become: written in order into
// its outputs with the audio and subtitles, journaled for --resume, the folder's layout and lock.
// May include: base, media, check, plan, source.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// One per rung, on its own thread: takes encoded chunks in any order and
// hands them strictly in order, with continuous timestamps, to each of the
// rung's sinks (engine/output/rung_sinks.hpp: one per output the format set
// asks for). A sink puts its output in place only after the last chunk, so
// a failed run leaves nothing that looks complete.
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

#include "engine/check/chunk_quality.hpp"
#include "engine/base/chunk.hpp"
#include "engine/base/job_report.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/output/rung_sinks.hpp"
#include "engine/base/shared_value.hpp"

namespace ladder::engine {

class RungFinalizer {
public:
    // sinks: the rung's outputs, fed in this order; the first one's is the
    // output the report names. video_frames (may be null) is told the
    // video's length when the rung's last chunk comes (the audio and
    // subtitle renditions wait for it; the first rung to know tells it).
    RungFinalizer(int rung_index, RungSpec rung, std::vector<std::unique_ptr<RungSink>> sinks, ProgressSink& progress,
                  SharedValue<std::int64_t>* video_frames = nullptr);

    // In any order; the rung's last chunk (EncodedChunk::ends_rung) says
    // how long the rung is.
    void deliver(EncodedChunk chunk);

    // Writes until the last chunk is in, then finishes the file.
    void run(std::stop_token stop);

    RungReport report() const;
    bool completed() const { return completed_; }  // after run() returned
    // Chunks delivered and not yet written.
    std::size_t waiting() const;
    // Blocks while `most` or more chunks are delivered and not yet written
    // (a producer that has them all, like `ladder stitch`, bounds memory
    // with it); false when stopped first.
    bool wait_for_room(std::size_t most, std::stop_token stop);
    std::vector<ChunkRecord> chunk_records() const;
    // The rung's CMAF track, for the master playlist and the DASH manifest;
    // null without one (mp4 only).
    const CmafRungSink* cmaf() const { return cmaf_; }

private:
    std::optional<EncodedChunk> wait_for(int index, std::stop_token stop);
    void write_chunk(const EncodedChunk& chunk, std::stop_token stop);

    int rung_index_;
    RungSpec rung_;
    std::vector<std::unique_ptr<RungSink>> sinks_;
    const CmafRungSink* cmaf_ = nullptr;  // one of sinks_
    ProgressSink& progress_;
    SharedValue<std::int64_t>* video_frames_;

    mutable std::mutex mu_;  // the finalizer's own: guards waiting_ and end_; a leaf
    std::condition_variable_any cv_;
    std::map<int, EncodedChunk> waiting_;
    std::optional<RungEnd> end_;  // once the last chunk came

    RungReport report_;
    bool completed_ = false;
    std::vector<ChunkRecord> records_;
    RungQuality quality_;  // --quality: the chunks measured so far
};

}  // namespace ladder::engine
