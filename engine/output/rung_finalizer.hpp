#pragma once
// Room engine/output/: what a rung's encoded chunks become: written in order into
// its outputs with the audio and subtitles, journaled for --resume, the folder's layout and lock.
// May include: base, media, check, plan, source.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// A rung's writer and the outputs it writes. RungFinalizer, one per rung,
// on its own thread: takes encoded chunks in any order and hands them
// strictly in order, with continuous timestamps (pts = frame number), to
// each of the rung's sinks: one RungSink per output the format set asks
// for (engine/output/output_formats.hpp); a sink knows only its own files,
// and puts its output in place only after the last chunk, so a failed run
// leaves nothing that looks complete.
//   CmafRungSink: OUTDIR/<rung>/ init.mp4, seg_NNNNN.m4s (one per chunk),
//     index.m3u8, iframes.m3u8: for hls, and for dash, whose manifest
//     (engine/run/dash_manifest_writer.hpp) names these same segments;
//   Mp4RungSink: OUTDIR/<rung>.mp4 with every audio and subtitle track.
// A new kind of rung output is one more sink here, made in
// OutputStage::open.
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "av/hdr_metadata.hpp"
#include "engine/base/chunk.hpp"
#include "engine/base/job_report.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/base/shared_value.hpp"
#include "engine/check/chunk_quality.hpp"
#include "engine/media/audio_tracks.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/source/subtitle_tracks.hpp"
#include "mux/cmaf_track_writer.hpp"
#include "mux/output_folder.hpp"
#include "mux/single_file_writer.hpp"

namespace ladder::engine {

class RungSink {
public:
    virtual ~RungSink() = default;
    // The rung's first chunk is here: the output's files are opened (its
    // video stream is the first chunk's).
    virtual void open(const EncodedChunk& first) = 0;
    // The next chunk in order. video_ends: it is the video's last chunk,
    // and the rung's length was known when it came (finish() follows).
    virtual void write_chunk(const EncodedChunk& chunk, bool video_ends, std::stop_token stop) = 0;
    // Every chunk is in (`frames`, the video's length): the output is
    // finished and put in place.
    virtual void finish(std::int64_t frames, std::stop_token stop) = 0;
    // What the rung's report names as its output (after finish()).
    virtual std::string output() const = 0;
};

// hls and dash: the rung's CMAF track and its HLS playlists.
class CmafRungSink final : public RungSink {
public:
    // folder: the rung's folder in outdir, made when the first chunk comes.
    CmafRungSink(mux::OutputFolder outdir, std::string folder, std::string rung_name, AVRational frame_rate,
                 av::HdrMetadata hdr);

    void open(const EncodedChunk& first) override;
    void write_chunk(const EncodedChunk& chunk, bool video_ends, std::stop_token stop) override;
    void finish(std::int64_t frames, std::stop_token stop) override;
    std::string output() const override;

    // The segments written, one per chunk; for the master playlist and the
    // DASH manifest (complete after finish()).
    const std::vector<mux::CmafSegment>& segments() const { return segments_; }

private:
    mux::OutputFolder outdir_;
    std::string folder_;
    std::string rung_name_;
    AVRational frame_rate_;
    av::HdrMetadata hdr_;
    std::unique_ptr<mux::CmafTrackWriter> writer_;
    std::vector<mux::CmafSegment> segments_;
};

// mp4: one file for the rung, the audio and subtitle tracks interleaved up
// to each chunk's end; renamed into place by finish() (an unfinished one
// leaves only its temporary file, removed by SingleFileWriter).
class Mp4RungSink final : public RungSink {
public:
    // audio, subtitles: may be null (none).
    Mp4RungSink(mux::OutputFolder outdir, std::string name, AVRational frame_rate, AudioTracks* audio,
                const SubtitleTracks* subtitles, av::HdrMetadata hdr);

    void open(const EncodedChunk& first) override;
    void write_chunk(const EncodedChunk& chunk, bool video_ends, std::stop_token stop) override;
    void finish(std::int64_t frames, std::stop_token stop) override;
    std::string output() const override;

private:
    // Every audio track's packets that end by the video's frame `frames`;
    // once the video ended (frames is its length), those that start before
    // it, the last cut there (engine/media/audio_segment_plan.hpp).
    void write_audio_until(std::int64_t frames, bool video_ended, std::stop_token stop);
    // The subtitle tracks' mov_text samples that start before frame
    // `frames`; at the video's end, a cue running past it is cut there.
    void write_subtitles_until(std::int64_t frames, bool video_ended, std::stop_token stop);

    mux::OutputFolder outdir_;
    std::string name_;
    AVRational frame_rate_;
    AudioTracks* audio_;
    const SubtitleTracks* subtitles_;
    av::HdrMetadata hdr_;
    std::unique_ptr<mux::SingleFileWriter> writer_;
    std::vector<std::size_t> audio_cursors_;     // per audio track
    std::vector<std::size_t> subtitle_cursors_;  // per subtitle track
};

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
    std::int64_t first_chunk_frames_ = 0;
    bool completed_ = false;
    std::vector<ChunkRecord> records_;
    RungQuality quality_;  // --quality: the chunks measured so far
};

}  // namespace ladder::engine
