#pragma once
// Room engine/output/: what a rung's encoded chunks become: written in order into
// its outputs with the audio and subtitles, journaled for --resume, the folder's layout and lock.
// May include: base, media, check, plan, source.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// One per rung, on its own thread: takes encoded chunks in any order and
// writes them strictly in order into the rung's output, with continuous
// timestamps and the shared AAC audio interleaved. The output is renamed into
// place only after the last chunk, so a failed run leaves nothing that looks
// complete.
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

#include "engine/check/chunk_quality.hpp"
#include "engine/media/audio_tracks.hpp"
#include "engine/source/subtitle_tracks.hpp"
#include "engine/base/chunk.hpp"
#include "engine/base/job_report.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/output/rung_outputs.hpp"
#include "mux/cmaf_track_writer.hpp"
#include "mux/single_file_writer.hpp"

namespace ladder::engine {

class RungFinalizer {
public:
    // audio (may be null) is interleaved into the MP4 output only; HLS audio
    // is its own rendition.
    // hdr: the source's HDR10 metadata, for the outputs' mdcv and clli boxes.
    // outdir: OUTDIR, held open; outputs are named inside it.
    RungFinalizer(int rung_index, Rung rung, mux::OutputFolder outdir, RungOutputs outputs, AVRational frame_rate, AudioTracks* audio,
                  const SubtitleTracks* subtitles,
                  av::HdrMetadata hdr, ProgressSink& progress);

    // From encoder workers, in any order.
    void deliver(EncodedChunk chunk);
    // From the rung's scaler, once it has queued its last chunk.
    void set_total(int chunks, std::int64_t frames);

    // Writes until the last chunk is in, then finishes the file.
    void run(std::stop_token stop);

    RungReport report() const;
    bool completed() const { return completed_; }  // after run() returned
    // Chunks delivered and not yet written (a producer that has them all,
    // like `ladder stitch`, waits while this is high to bound memory).
    std::size_t waiting() const;
    std::vector<ChunkRecord> chunk_records() const;
    // The HLS segments written (empty without HLS output). Valid after run().
    const std::vector<mux::CmafSegment>& hls_segments() const { return hls_segments_; }

private:
    std::optional<EncodedChunk> wait_for(int index, std::stop_token stop);
    void write_chunk(EncodedChunk& chunk, std::stop_token stop);
    // Every audio track's packets that end by the video's frame `frames`;
    // once the video ended (frames is its length), those that start before
    // it, the last cut there (engine/media/audio_segment_plan.hpp).
    void write_audio_until(std::int64_t frames, bool video_ended, std::stop_token stop);
    // The subtitle tracks' mov_text samples that start before frame `frames`.
    void write_subtitles_until(std::int64_t frames, std::stop_token stop);
    void open_outputs(const EncodedChunk& first);
    void finish_hls();

    av::HdrMetadata hdr_;
    int rung_index_;
    Rung rung_;
    mux::OutputFolder outdir_;
    RungOutputs outputs_;
    AVRational frame_rate_;
    AudioTracks* audio_;
    const SubtitleTracks* subtitles_;
    ProgressSink& progress_;

    mutable std::mutex mu_;
    std::condition_variable_any cv_;
    std::map<int, EncodedChunk> waiting_;
    std::optional<int> total_chunks_;
    std::int64_t total_frames_ = 0;

    std::unique_ptr<mux::SingleFileWriter> mp4_;
    std::unique_ptr<mux::CmafTrackWriter> cmaf_;
    std::vector<mux::CmafSegment> hls_segments_;
    std::vector<std::size_t> audio_cursors_;  // per audio track
    std::vector<std::size_t> subtitle_cursors_;  // per subtitle track
    RungReport report_;
    bool completed_ = false;
    std::vector<ChunkRecord> records_;
    RungQuality quality_;  // --quality: the chunks measured so far
};

}  // namespace ladder::engine
