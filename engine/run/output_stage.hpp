#pragma once
// A ladder's outputs, from a checked folder to a finished ladder; the one
// piece `ladder encode` and `ladder stitch` share for it. It checks and
// prepares the folder (an old master playlist goes first and comes back
// last), makes each rung's writer (the rung owns it) and owns the audio and
// subtitle renditions, withdraws
// the finished outputs of a run that does not complete, writes the master
// playlist last, and fills the report's rungs and chunks.
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/output/audio_rendition_writer.hpp"
#include "engine/media/audio_tracks.hpp"
#include "engine/run/job.hpp"
#include "engine/base/job_report.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/output/output_paths.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/output/rung_finalizer.hpp"
#include "engine/output/rung_finalizer.hpp"
#include "engine/rung/rung.hpp"
#include "engine/base/shared_value.hpp"
#include "engine/base/stage_threads.hpp"
#include "engine/output/subtitle_rendition_writer.hpp"
#include "engine/source/source_info.hpp"

namespace ladder::engine {

struct OutputRequest {
    std::filesystem::path outdir;
    std::vector<RungSpec> rungs;
    OutputFormats formats{OutputFormat::hls};
    std::vector<std::string> audio;  // the ids of the ladder's audio renditions (none: no audio)
    std::vector<std::string> subtitles;  // the ids of its subtitle renditions
    bool overwrite = false;  // earlier outputs there may be replaced
    // Every file the run reads (source, --audio-file, ...): none may be an
    // output (engine/output/output_paths.hpp).
    std::vector<std::filesystem::path> inputs;
    // Files the caller writes besides the outputs (the report).
    std::vector<std::filesystem::path> other_outputs;
};

class OutputStage {
public:
    // Checks the folder (InputError when it holds outputs that may not be
    // replaced or an input is in the way, UnsafeOutputPath for a link where
    // an output goes) and prepares it; writes no output yet.
    explicit OutputStage(OutputRequest request);
    OutputStage(const OutputStage&) = delete;
    OutputStage& operator=(const OutputStage&) = delete;

    // With CMAF segments (hls, dash), one writer per audio and subtitle
    // rendition. audio and subtitles may be null.
    void open(AudioTracks* audio, const SubtitleTracks* subtitles, int chunk_frames, AVRational frame_rate, const av::HdrMetadata& hdr);
    // After open(): a rung's writer, with a sink per output the formats ask
    // for (engine/output/rung_finalizer.hpp; the MP4 gets every audio and
    // subtitle track too). The first rung's last chunk it takes tells the
    // renditions the video's length.
    std::unique_ptr<RungFinalizer> make_writer(std::size_t rung, ProgressSink& progress);

    // Parallel to the AudioTracks given to open(); empty without HLS or audio.
    std::vector<AudioRenditionWriter*> audio_renditions() const;
    // The audio and subtitle rendition writers, which wait for the video's
    // length: run as stages of their own (encode) or one after another (stitch).
    void start_rendition_writers(StageThreads& stages);
    void run_rendition_writers(std::stop_token stop);
    // CMAF segments, their playlists and master.m3u8: hls or dash.
    bool writes_hls() const { return request_.formats.cmaf_segments(); }
    bool writes_dash() const { return request_.formats.contains(OutputFormat::dash); }

    // The run did not complete: rungs left unfinished say so, and the
    // outputs that were finished are withdrawn (nothing looks complete).
    void abandon(const Rungs& rungs, ProgressSink& progress);
    // Every rung is complete: the master playlist is written, last; when
    // that fails, the outputs are withdrawn.
    void publish(const SourceInfo& src, const Rungs& rungs, const AudioTracks* audio, const SubtitleTracks* subtitles);

    // Each rung's report and its chunks.
    static void fill_report(const Rungs& rungs, JobReport& report);

private:
    void withdraw(const Rungs& rungs);

    OutputRequest request_;
    LadderOutputs paths_;
    mux::OutputFolder root_;  // OUTDIR, held open: every output is written below it
    std::vector<std::filesystem::path> rendition_folders_;  // audio/<id>, subtitles/<id>
    // What open() was given, for the rungs' writers.
    AudioTracks* audio_ = nullptr;
    const SubtitleTracks* subtitles_ = nullptr;
    AVRational frame_rate_{0, 1};
    av::HdrMetadata hdr_;
    SharedValue<std::int64_t> video_frames_;  // the video's length: the rungs' writers tell the renditions
    std::vector<std::unique_ptr<AudioRenditionWriter>> audio_renditions_;
    std::vector<std::unique_ptr<SubtitleRenditionWriter>> subtitle_renditions_;
};

}  // namespace ladder::engine
