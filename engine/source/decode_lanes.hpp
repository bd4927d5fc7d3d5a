#pragma once
// The source's decode, in one lane or several. With cuts (find_decode_cuts)
// the source is decoded in lanes that run at once, one DecodePump each on a
// demuxer of its own (CPU decoders, or NVDEC sessions), each from one cut to
// the next; every consumer (a rung's scaler, the complexity analysis) gets a
// channel per lane, and the frames keep their numbers in the whole source.
// More lanes can start while the run goes (grow()): a new lane takes the
// far half of the range a lane has not read yet, from a clean key frame
// there. Audio is then read by a stage of its own. With one lane and no
// growth, the lane is the single pump of old, audio included.
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "av/input_file.hpp"
#include "engine/media/audio_tracks.hpp"
#include "engine/source/decode_pump.hpp"
#include "engine/base/job_report.hpp"
#include "engine/source/lane_bounds.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/base/shared_value.hpp"
#include "engine/source/source_info.hpp"
#include "engine/base/stage_threads.hpp"

namespace ladder::engine {

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
    // start, even with one lane).
    DecodeLanes(av::InputFile& source_input, const SourceInfo& source, const std::vector<std::int64_t>& cuts,
                int consumers, std::size_t channel_capacity, AudioTracks* audio, ProgressSink& progress,
                std::vector<Device> devices, bool growable = false);

    int size() const;
    // The CUDA ordinal of the GPU lane i decodes on; -1: the CPU.
    int gpu_of(int lane) const;
    FrameChannel& channel(int lane, int consumer);
    // Whether the lane's frames end with the source's (it can change while
    // the lane runs, until it has read its range).
    std::function<bool()> ends_source(int lane);
    // A shard's frames (one lane only).
    void limit_to(FrameRange range) { lanes_.front().pump->limit_to(range); }
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
    void start_lane(StageThreads& stages, Lane& lane, int index);
    void read_audio(std::stop_token stop);

    av::InputFile& source_input_;
    const SourceInfo& source_;
    int consumers_;
    std::size_t channel_capacity_;
    AudioTracks* audio_;
    ProgressSink& progress_;
    std::vector<Device> devices_;
    bool separate_audio_;
    mutable std::mutex mu_;  // the lanes' own: guards the list; lanes start and bounds are cut under it
    std::deque<Lane> lanes_;
    SharedValue<std::int64_t> origin_;
    SharedValue<std::int64_t> source_end_;
    std::atomic<std::int64_t> frames_handed_on_{0};
};

}  // namespace ladder::engine
