#include "engine/decode_lanes.hpp"

#include <fmt/format.h>

#include <chrono>

#include "av/av_error.hpp"
#include "engine/errors.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace ladder::engine {

DecodeLanes::DecodeLanes(av::InputFile& source_input, const SourceInfo& source, const std::vector<std::int64_t>& cuts,
                         int consumers, std::size_t channel_capacity, AudioTrack* audio, ProgressSink& progress,
                         const std::vector<Device>& devices)
    : source_(source), path_(source_input.path()), audio_(audio) {
    const std::size_t count = cuts.size() + 1;
    for (std::size_t i = 0; i < count; ++i) {
        Lane lane;
        if (i > 0) lane.own_input = std::make_unique<av::InputFile>(source_input.path());
        std::vector<FrameChannel*> outputs;
        for (int c = 0; c < consumers; ++c) {
            lane.channels.push_back(std::make_unique<FrameChannel>(channel_capacity));
            outputs.push_back(lane.channels.back().get());
        }
        av::InputFile& input = lane.own_input ? *lane.own_input : source_input;
        lane.pump = std::make_unique<DecodePump>(input, source, std::move(outputs), count == 1 ? audio : nullptr,
                                                 progress,
                                                 devices.empty() ? nullptr
                                                                 : av::ref_buffer(devices[i % devices.size()].cuda));
        lane.device = devices.empty() ? "cpu" : devices[i % devices.size()].label;
        if (count > 1) {
            DecodeLaneSpec spec;
            spec.start_pts = i == 0 ? AV_NOPTS_VALUE : cuts[i - 1];
            spec.end_pts = i + 1 == count ? AV_NOPTS_VALUE : cuts[i];
            spec.origin = &origin_;
            spec.source_end = &source_end_;
            spec.frames_handed_on = &frames_handed_on_;
            lane.pump->as_lane(spec);
        }
        lanes_.push_back(std::move(lane));
    }
}

FrameChannel& DecodeLanes::channel(int lane, int consumer) {
    return *lanes_.at(static_cast<std::size_t>(lane)).channels.at(static_cast<std::size_t>(consumer));
}

void DecodeLanes::start(StageThreads& stages) {
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        Lane* lane = &lanes_[i];
        stages.start(
            lanes_.size() == 1 ? std::string("decode") : fmt::format("decode lane {}", i),
            [lane](std::stop_token t) {
                const auto started = std::chrono::steady_clock::now();
                lane->pump->run(t);
                lane->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            },
            [lane] { lane->pump->close_outputs(); });
    }
    if (lanes_.size() > 1 && audio_)
        stages.start("audio", [this](std::stop_token t) { read_audio(t); }, [this] { audio_->abandon(); });
}

// The audio packets from a demuxer of its own, all of them; the track ends
// where the video does, which the last lane says.
void DecodeLanes::read_audio(std::stop_token stop) {
    av::InputFile input(path_);
    AVFormatContext* ic = input.get();
    for (unsigned i = 0; i < ic->nb_streams; ++i)
        if (static_cast<int>(i) != source_.audio_stream) ic->streams[i]->discard = AVDISCARD_ALL;
    av::PacketPtr pkt = av::make_packet();
    for (;;) {
        if (stop.stop_requested()) throw Cancelled();
        try {
            if (!input.read(pkt.get())) break;
        } catch (const av::AvError&) {
            break;  // a cut or damaged file: the video lanes say so
        }
        if (pkt->stream_index == source_.audio_stream) audio_->feed(pkt.get());
        av_packet_unref(pkt.get());
    }
    const auto frames = source_end_.wait(stop);
    if (!frames) throw Cancelled();
    audio_->finish(av_rescale_q(*frames, av_inv_q(source_.frame_rate), audio_->time_base()));
}

PumpCounters DecodeLanes::totals() const {
    PumpCounters sum = lanes_.front().pump->counters();
    for (std::size_t i = 1; i < lanes_.size(); ++i) {
        const PumpCounters& c = lanes_[i].pump->counters();
        sum.video_packets += c.video_packets;
        sum.frames_decoded += c.frames_decoded;
        sum.frames_normalized += c.frames_normalized;
        sum.busy_seconds += c.busy_seconds;
        sum.frames_on_gpu += c.frames_on_gpu;
        sum.damaged += c.damaged;
        sum.end_frame = std::max(sum.end_frame, c.end_frame);
    }
    return sum;
}

std::vector<DecodeLaneRecord> DecodeLanes::records() const {
    std::vector<DecodeLaneRecord> out;
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        const PumpCounters& c = lanes_[i].pump->counters();
        out.push_back(DecodeLaneRecord{static_cast<int>(i), lanes_[i].device, c.first_frame, c.end_frame,
                                       c.video_packets, c.frames_decoded, c.busy_seconds, lanes_[i].seconds});
    }
    return out;
}

}  // namespace ladder::engine
