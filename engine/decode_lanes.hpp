#pragma once
// The source's decode, in one lane or several. With cuts (find_decode_cuts)
// the source is decoded in lanes that run at once, one DecodePump each on a
// demuxer of its own (CPU decoders, or NVDEC sessions on the decoding GPU),
// each from one cut to the next; every consumer (a rung's scaler, the
// complexity analysis) gets a channel per lane, and the frames keep their
// numbers in the whole source. Audio is then read by a stage of its own.
// Without cuts, one lane is the single pump of old, audio included.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "av/input_file.hpp"
#include "engine/audio_track.hpp"
#include "engine/decode_pump.hpp"
#include "engine/job_report.hpp"
#include "engine/progress_sink.hpp"
#include "engine/shared_value.hpp"
#include "engine/source_info.hpp"
#include "engine/stage_threads.hpp"

namespace ladder::engine {

class DecodeLanes {
public:
    // source_input: the run's demuxer (the first lane's); consumers: the
    // channels each lane feeds, each of channel_capacity frames.
    // devices: CUDA devices to decode on with NVDEC, lane i on device
    // i mod count (empty: the CPU).
    struct Device {
        AVBufferRef* cuda = nullptr;
        std::string label;
    };
    DecodeLanes(av::InputFile& source_input, const SourceInfo& source, const std::vector<std::int64_t>& cuts,
                int consumers, std::size_t channel_capacity, AudioTrack* audio, ProgressSink& progress,
                const std::vector<Device>& devices);

    int size() const { return static_cast<int>(lanes_.size()); }
    FrameChannel& channel(int lane, int consumer);
    // A shard's frames (one lane only).
    void limit_to(FrameRange range) { lanes_.front().pump->limit_to(range); }
    // The lanes' pumps, and the audio reader when there are several.
    void start(StageThreads& stages);

    // Summed over the lanes; origin_pts, first_frame: the first lane's.
    PumpCounters totals() const;
    std::vector<DecodeLaneRecord> records() const;

private:
    struct Lane {
        std::unique_ptr<av::InputFile> own_input;  // null for the first lane
        std::unique_ptr<DecodePump> pump;
        std::vector<std::unique_ptr<FrameChannel>> channels;
        std::string device;
        double seconds = 0;
    };
    void read_audio(std::stop_token stop);

    const SourceInfo& source_;
    std::string path_;
    AudioTrack* audio_;
    std::vector<Lane> lanes_;
    SharedValue<std::int64_t> origin_;
    SharedValue<std::int64_t> source_end_;
    std::atomic<std::int64_t> frames_handed_on_{0};
};

}  // namespace ladder::engine
