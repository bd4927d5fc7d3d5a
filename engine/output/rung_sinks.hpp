#pragma once
// Where a rung's encoded chunks go: one RungSink per output the format set
// asks for (engine/output/output_formats.hpp). The rung's finalizer hands
// every sink the same chunks, strictly in order, with continuous timestamps
// (pts = frame number); a sink knows only its own files.
//   CmafRungSink: OUTDIR/<rung>/ init.mp4, seg_NNNNN.m4s (one per chunk),
//     index.m3u8, iframes.m3u8: for hls, and for dash, whose manifest
//     (engine/run/dash_manifest_writer.hpp) names these same segments;
//   Mp4RungSink: OUTDIR/<rung>.mp4 with every audio and subtitle track.
// A new kind of rung output is one more sink here, made in
// OutputStage::open.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "av/hdr_metadata.hpp"
#include "engine/base/chunk.hpp"
#include "engine/media/audio_tracks.hpp"
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

}  // namespace ladder::engine
