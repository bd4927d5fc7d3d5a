#pragma once
// Demuxes and decodes the source exactly once. Video frames are normalized
// once (deinterlaced and turned upright when the source says so, constant
// frame rate from the stream's rate, one pixel format) and
// handed to every rung scaler as new references to the same buffers (no
// pixel copy); audio packets go to the AudioTrack.
#include <atomic>
#include <cstdint>
#include <stop_token>
#include <vector>

#include "av/hw_device.hpp"
#include "av/input_file.hpp"
#include "engine/audio_track.hpp"
#include "engine/bounded_channel.hpp"
#include "engine/progress_sink.hpp"
#include "engine/source_info.hpp"

namespace ladder::engine {

using FrameChannel = BoundedChannel<av::FramePtr>;

struct PumpCounters {
    std::int64_t video_packets = 0;
    std::int64_t frames_decoded = 0;
    std::int64_t frames_normalized = 0;
    double busy_seconds = 0;  // demux + decode + normalize, without waiting for room downstream
    std::int64_t frames_on_gpu = 0;  // decoded frames that came out in GPU memory (NVDEC)
    std::int64_t damaged = 0;        // video packets the decoder refused or flagged, frames it concealed
};

class DecodePump {
public:
    // hw_device (may be null): a CUDA device context to decode on with
    // NVDEC; frames then stay in GPU memory and the scalers use scale_cuda.
    DecodePump(av::InputFile& input, const SourceInfo& source, std::vector<FrameChannel*> outputs,
               AudioTrack* audio, ProgressSink& progress, av::BufferRefPtr hw_device = nullptr);

    // Runs to the end of the source, then closes every output channel and
    // finishes the audio track. When it throws, the caller first stops the
    // run and then calls close_outputs(), so no consumer mistakes a failure
    // for the end of the source.
    void run(std::stop_token stop);
    void close_outputs();

    const PumpCounters& counters() const { return counters_; }

private:
    void decode_video(const AVPacket* pkt, std::stop_token stop);
    void normalize(AVFrame* frame, std::stop_token stop);
    void fan_out(av::FramePtr frame, std::stop_token stop);
    bool read_packet(AVPacket* pkt);
    void report_damage();

    av::InputFile& input_;
    const SourceInfo& source_;
    std::vector<FrameChannel*> outputs_;
    AudioTrack* audio_;
    ProgressSink& progress_;
    av::BufferRefPtr hw_device_;
    std::unique_ptr<av::GpuFrameCopier> gpu_copier_;
    av::CodecContextPtr decoder_;
    std::unique_ptr<av::FilterChain> normalizer_;
    PumpCounters counters_;
    std::int64_t end_pts_ = 0;  // source time base
    double blocked_seconds_ = 0;
    std::string read_error_;  // why demuxing stopped early, when it did
};

}  // namespace ladder::engine
