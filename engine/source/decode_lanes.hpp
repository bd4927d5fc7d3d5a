#pragma once
// Room engine/source/: the input read once: described, cut into lanes at clean key
// frames, demuxed, decoded and normalized; frames numbered, subtitles read.
// May include: base, media.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// The source's decode, in one lane or several. With cuts (find_decode_cuts)
// the source is decoded in lanes that run at once, one DecodePump each on a
// demuxer of its own (CPU decoders, or NVDEC sessions), each from one cut to
// the next; every consumer (a rung's scaler, the complexity analysis) gets a
// channel per lane, and the frames keep their numbers in the whole source.
// More lanes can start while the run goes (grow()): a new lane takes the
// far half of the range a lane has not read yet, from a clean key frame
// there. Audio is then read by a stage of its own. With one lane and no
// growth, the lane is the single pump of old, audio included.
//
// DecodePump, one per lane: demuxes and decodes its part of the source
// exactly once. Video frames are normalized
// once (deinterlaced and turned upright when the source says so, constant
// frame rate from the stream's rate, one pixel format) and
// handed to every rung scaler as new references to the same buffers (no
// pixel copy); audio packets go to the AudioTracks.
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "av/hw_device.hpp"
#include "av/input_file.hpp"
#include "av/logging.hpp"
#include "engine/base/bounded_channel.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/job_report.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/base/shared_value.hpp"
#include "engine/base/stage_threads.hpp"
#include "engine/media/audio_tracks.hpp"
#include "engine/source/lane_bounds.hpp"
#include "engine/source/picture_fit.hpp"
#include "engine/source/source_info.hpp"

namespace ladder::engine {

class DecodedFrames;

using FrameChannel = BoundedChannel<av::FramePtr>;

struct PumpCounters {
    std::int64_t video_packets = 0;
    std::int64_t frames_decoded = 0;
    std::int64_t frames_normalized = 0;
    double busy_seconds = 0;  // demux + decode + normalize, without waiting for room downstream
    std::int64_t frames_on_gpu = 0;  // decoded frames that came out in GPU memory (NVDEC)
    std::int64_t damaged = 0;        // video packets the decoder refused or flagged, frames it concealed
    // The constant-rate step's timestamp (in 1/frame_rate) of the first
    // frame handed on: frame n of the whole source has origin_pts + n, also
    // when decoding starts in the middle (a shard).
    std::int64_t origin_pts = 0;
    // The numbers (in the whole source) of the first frame handed on and
    // of the one after the last.
    std::int64_t first_frame = 0;
    std::int64_t end_frame = 0;
};

// Frames [first, end) of the normalized source, whose frame 0 has the
// timestamp origin_pts (PumpCounters::origin_pts of a pass over the whole
// source): a shard decodes only these, from the key frame before them.
struct FrameRange {
    std::int64_t first = 0;
    std::int64_t end = 0;
    std::int64_t origin_pts = 0;
    // The numbers (in the whole source) of the first frame handed on and
    // of the one after the last.
    std::int64_t first_frame = 0;
    std::int64_t end_frame = 0;
};

// One of several decode lanes over the source, between two cuts of
// find_decode_cuts: from the key frame at start_pts (AV_NOPTS_VALUE: the
// source's start) until the key frame where bounds ends it and that key
// frame's leading pictures are read (or the source's end). Frames are
// numbered as one pass over the whole source numbers them: from the first
// lane's first timestamp.
struct DecodeLaneSpec {
    std::int64_t start_pts = AV_NOPTS_VALUE;
    LaneBounds* bounds = nullptr;  // where it ends; may move earlier while it runs
    SharedValue<std::int64_t>* origin = nullptr;      // published by the first lane
    SharedValue<std::int64_t>* source_end = nullptr;  // the frame count, published by the last lane
    std::atomic<std::int64_t>* frames_handed_on = nullptr;  // every lane's, for progress
};

// Warns when fewer frames were decoded than the container's header lists
// (a truncated MP4): a lane knows only its part, so the run's decode lanes
// ask this with their totals.
void note_frames_missing(const AVStream* video, const SourceInfo& source, const PumpCounters& decoded,
                         ProgressSink& progress);

// The part of a budget run's kept frames one lane hands on: [first, end)
// in DecodedFrames::frames()'s order. The first part also carries what the
// pass that decoded them counted (packets, damage, decode time), so the
// lanes' totals are that pass's; the last one ends the source.
struct ReplayPart {
    std::size_t first = 0;
    std::size_t end = SIZE_MAX;
    bool first_part = true;
    bool last_part = true;
};

// How a later pass of a budget run hands on the kept frames: in `lanes`
// lanes at once, each a run of whole chunks of chunk_frames (the rung
// scalers then scale in that many threads each: with one lane, a pass's
// chunks became ready one after another, the last more than a second after
// the first on 16 cores, while slots waited).
struct FramesReplay {
    const DecodedFrames* frames = nullptr;  // complete
    int lanes = 1;
    int chunk_frames = 1;
};

class DecodePump {
public:
    // hw_device (may be null): a CUDA device context to decode on with
    // NVDEC; frames then stay in GPU memory and the scalers use scale_cuda.
    DecodePump(av::InputFile& input, const SourceInfo& source, std::vector<FrameChannel*> outputs,
               AudioTracks* audio, ProgressSink& progress, av::BufferRefPtr hw_device = nullptr);

    // Runs to the end of the source, then closes every output channel and
    // finishes the audio track. A source of which no video frame decodes
    // throws InputError, before any channel is closed, with what the decoder
    // logged on this thread (a frame-threaded decoder's own threads print
    // theirs). When it throws, the caller first stops the
    // run and then calls close_outputs(), so no consumer mistakes a failure
    // for the end of the source.
    void run(std::stop_token stop);
    void close_outputs();

    // Only these frames, numbered from range.first: the pump seeks to the
    // key frame before them, skips what comes earlier, stops after them,
    // and throws RunError when the source does not give exactly these
    // (another source than the one planned). No audio then.
    void limit_to(FrameRange range) { range_ = range; }
    // Only this lane's frames; no audio then (see AudioReader).
    void as_lane(DecodeLaneSpec lane) { lane_ = lane; }
    // Every frame handed on is also kept there (a budget run's first pass).
    void keep_in(DecodedFrames* frames) { keep_ = frames; }
    // Hands on the frames a first pass kept instead of decoding the source
    // (no audio then: see AudioReader): those of `part` in frames()'s order.
    void replay_from(const DecodedFrames* frames, ReplayPart part) {
        replay_ = frames;
        replay_part_ = part;
    }

    const PumpCounters& counters() const { return counters_; }

private:
    void decode_all(std::stop_token stop, std::optional<av::LibraryLogCapture>& before_first_frame);
    void replay_all(std::stop_token stop);
    InputError no_video_frame(const std::string& decoder_says) const;
    void decode_video(const AVPacket* pkt, std::stop_token stop);
    void normalize(AVFrame* frame, std::stop_token stop);
    void fan_out(av::FramePtr frame, std::stop_token stop);
    void hand_on(av::FramePtr frame, std::int64_t number, std::stop_token stop);
    void seek_to_range();
    void seek_to_lane_start();
    bool lane_stops_at(const AVPacket* pkt);
    void decode_next_lane_key(std::stop_token stop);
    std::int64_t lane_frame_number(const AVFrame* frame, std::stop_token stop);
    bool read_packet(AVPacket* pkt);
    void report_damage(bool whole_source);

    av::InputFile& input_;
    const SourceInfo& source_;
    std::vector<FrameChannel*> outputs_;
    AudioTracks* audio_;
    ProgressSink& progress_;
    av::BufferRefPtr hw_device_;
    std::unique_ptr<av::GpuFrameCopier> gpu_copier_;
    av::CodecContextPtr decoder_;
    std::unique_ptr<av::FilterChain> normalizer_;
    PictureFit fit_;  // frames whose size changed mid-stream, back to the first one's
    PumpCounters counters_;
    std::int64_t end_pts_ = 0;  // source time base
    double blocked_seconds_ = 0;
    std::string read_error_;  // why demuxing stopped early, when it did
    std::optional<FrameRange> range_;
    bool range_done_ = false;  // every frame of range_ was handed on
    bool origin_known_ = false;
    std::optional<DecodeLaneSpec> lane_;
    bool before_lane_ = false;  // still reading up to the lane's first key frame
    bool lane_done_ = false;    // the next lane's key frame was read
    bool lane_read_all_ = false;  // ... and its leading pictures after it
    av::PacketPtr next_lane_key_;  // held until a leading picture comes
    std::int64_t lane_end_ = AV_NOPTS_VALUE;
    int lane_seeks_ = 0;
    static constexpr int kLaneSeeks = 5;
    std::optional<std::int64_t> lane_origin_;
    DecodedFrames* keep_ = nullptr;
    const DecodedFrames* replay_ = nullptr;
    ReplayPart replay_part_;
};

class DecodeLanes {
public:
    // Where lane i decodes: devices[i mod count] (empty: the CPU).
    struct Device {
        AVBufferRef* cuda = nullptr;
        std::string label;
        int gpu = -1;  // CUDA ordinal
    };
    // source_input: the run's demuxer (the first lane's); consumers: the
    // channels each lane feeds, each of channel_capacity frames; growable:
    // more lanes may start later (the audio is then read on its own from the
    // start, even with one lane); replay (its frames complete): they are
    // handed on by replay.lanes lanes and nothing is decoded (no cuts, not
    // growable; the audio is read on its own).
    DecodeLanes(av::InputFile& source_input, const SourceInfo& source, const std::vector<std::int64_t>& cuts,
                int consumers, std::size_t channel_capacity, AudioTracks* audio, ProgressSink& progress,
                std::vector<Device> devices, bool growable = false, FramesReplay replay = {});

    int size() const;
    // The CUDA ordinal of the GPU lane i decodes on; -1: the CPU.
    int gpu_of(int lane) const;
    FrameChannel& channel(int lane, int consumer);
    // Whether the lane's frames end with the source's (it can change while
    // the lane runs, until it has read its range).
    std::function<bool()> ends_source(int lane);
    // A shard's frames (one lane only).
    void limit_to(FrameRange range) { lanes_.front().pump->limit_to(range); }
    // Every lane, and every lane grow() adds, keeps its frames there.
    void keep_in(DecodedFrames* frames);
    // The lanes' pumps, and the audio reader when there are several.
    void start(StageThreads& stages);

    // One more lane, on the far half of the largest range a lane has not
    // read yet (at a clean cut at least min_seconds from either end).
    // before_start runs while the lane that gives up part of its range is
    // held, before it can end (consumers count one more lane); connect then
    // makes the new lane's consumers and starts them. False: no range left
    // to split.
    bool grow(StageThreads& stages, double min_seconds, const std::function<void()>& before_start,
              const std::function<void(int lane)>& connect);
    // Every lane has read its whole range.
    bool all_read() const;

    // Summed over the lanes; origin_pts, first_frame: the first lane's.
    PumpCounters totals() const;
    // After every lane has ended: the warning of a source cut short that
    // only all lanes' totals can give (a single pump gives it itself).
    void note_frames_missing() const;
    std::vector<DecodeLaneRecord> records() const;

private:
    struct Lane {
        std::unique_ptr<av::InputFile> own_input;  // null for the first lane
        std::unique_ptr<LaneBounds> bounds;
        std::unique_ptr<DecodePump> pump;
        std::vector<std::unique_ptr<FrameChannel>> channels;
        std::string device;
        double seconds = 0;
        std::atomic<bool> read_all{false};
    };
    Lane& add_lane(std::int64_t start_pts, std::int64_t end_pts);
    void add_replay_lanes(const FramesReplay& replay);
    void start_lane(StageThreads& stages, Lane& lane, int index);
    void read_audio(std::stop_token stop);

    av::InputFile& source_input_;
    const SourceInfo& source_;
    int consumers_;
    std::size_t channel_capacity_;
    AudioTracks* audio_;
    ProgressSink& progress_;
    std::vector<Device> devices_;
    const DecodedFrames* replay_;
    bool separate_audio_;
    DecodedFrames* keep_ = nullptr;  // set before start()
    mutable std::mutex mu_;  // the lanes' own: guards the list; lanes start and bounds are cut under it
    std::deque<Lane> lanes_;
    SharedValue<std::int64_t> origin_;
    SharedValue<std::int64_t> source_end_;
    std::atomic<std::int64_t> frames_handed_on_{0};
};

}  // namespace ladder::engine
