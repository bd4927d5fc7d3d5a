#include "engine/source/decode_lanes.hpp"

#include <fmt/format.h>

#include <chrono>

#include "av/av_error.hpp"
#include "engine/source/decode_cuts.hpp"
#include "engine/base/errors.hpp"
#include "engine/source/source_info.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace ladder::engine {

DecodeLanes::DecodeLanes(av::InputFile& source_input, const SourceInfo& source, const std::vector<std::int64_t>& cuts,
                         int consumers, std::size_t channel_capacity, AudioTracks* audio, ProgressSink& progress,
                         std::vector<Device> devices, bool growable)
    : source_input_(source_input),
      source_(source),
      consumers_(consumers),
      channel_capacity_(channel_capacity),
      audio_(audio),
      progress_(progress),
      devices_(std::move(devices)),
      // Audio from --audio-file is read by a stage of its own, on that file.
      separate_audio_(growable || !cuts.empty() || (audio && !source.audio_path.empty())) {
    for (std::size_t i = 0; i <= cuts.size(); ++i)
        add_lane(i == 0 ? AV_NOPTS_VALUE : cuts[i - 1], i == cuts.size() ? AV_NOPTS_VALUE : cuts[i]);
}

DecodeLanes::Lane& DecodeLanes::add_lane(std::int64_t start_pts, std::int64_t end_pts) {
    const std::size_t i = lanes_.size();
    Lane& lane = lanes_.emplace_back();
    if (i > 0) lane.own_input = std::make_unique<av::InputFile>(source_input_.spec());
    std::vector<FrameChannel*> outputs;
    for (int c = 0; c < consumers_; ++c) {
        lane.channels.push_back(std::make_unique<FrameChannel>(channel_capacity_));
        outputs.push_back(lane.channels.back().get());
    }
    av::InputFile& input = lane.own_input ? *lane.own_input : source_input_;
    lane.device = devices_.empty() ? "cpu" : devices_[i % devices_.size()].label;
    lane.pump = std::make_unique<DecodePump>(
        input, source_, std::move(outputs), separate_audio_ ? nullptr : audio_, progress_,
        devices_.empty() ? nullptr : av::ref_buffer(devices_[i % devices_.size()].cuda));
    if (separate_audio_) {
        lane.bounds = std::make_unique<LaneBounds>(start_pts, end_pts);
        DecodeLaneSpec spec;
        spec.start_pts = start_pts;
        spec.bounds = lane.bounds.get();
        spec.origin = &origin_;
        spec.source_end = &source_end_;
        spec.frames_handed_on = &frames_handed_on_;
        lane.pump->as_lane(spec);
    }
    return lane;
}

int DecodeLanes::size() const {
    std::lock_guard lock(mu_);
    return static_cast<int>(lanes_.size());
}

int DecodeLanes::gpu_of(int lane) const {
    // Lanes take the devices in turn (see the constructor and grow()).
    return devices_.empty() ? -1 : devices_[static_cast<std::size_t>(lane) % devices_.size()].gpu;
}

FrameChannel& DecodeLanes::channel(int lane, int consumer) {
    std::lock_guard lock(mu_);
    return *lanes_.at(static_cast<std::size_t>(lane)).channels.at(static_cast<std::size_t>(consumer));
}

std::function<bool()> DecodeLanes::ends_source(int lane) {
    std::lock_guard lock(mu_);
    LaneBounds* bounds = lanes_.at(static_cast<std::size_t>(lane)).bounds.get();
    if (!bounds) return [] { return true; };
    return [bounds] { return bounds->ends_source(); };
}

void DecodeLanes::start_lane(StageThreads& stages, Lane& lane, int index) {
    Lane* l = &lane;
    stages.start(
        index == 0 && !separate_audio_ ? std::string("decode") : fmt::format("decode lane {}", index),
        [l](std::stop_token t) {
            const auto started = std::chrono::steady_clock::now();
            l->pump->run(t);
            l->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            l->read_all = true;
        },
        [l] { l->pump->close_outputs(); });
}

void DecodeLanes::start(StageThreads& stages) {
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < lanes_.size(); ++i) start_lane(stages, lanes_[i], static_cast<int>(i));
    if (separate_audio_ && audio_)
        stages.start("audio", [this](std::stop_token t) { read_audio(t); }, [this] { audio_->abandon(); });
}

bool DecodeLanes::grow(StageThreads& stages, double min_seconds, const std::function<void()>& before_start,
                       const std::function<void(int lane)>& connect) {
    if (!separate_audio_) return false;
    const AVStream* vs = source_input_.get()->streams[source_.video_stream];
    const std::int64_t min_gap = av_rescale_q(static_cast<std::int64_t>(min_seconds * 1000), {1, 1000}, vs->time_base);
    const auto [stream_start, stream_end] = video_span(source_input_.get(), source_.video_stream);
    // The lane with the most left to read.
    Lane* widest = nullptr;
    std::int64_t widest_read = 0, widest_end = 0;
    {
        std::lock_guard lock(mu_);
        for (Lane& lane : lanes_) {
            if (lane.read_all) continue;
            const std::int64_t read = std::max(lane.bounds->read(), stream_start);
            const std::int64_t end = lane.bounds->end() == AV_NOPTS_VALUE ? stream_end : lane.bounds->end();
            if (!widest || end - read > widest_end - widest_read) {
                widest = &lane;
                widest_read = read;
                widest_end = end;
            }
        }
    }
    if (!widest || widest_end - widest_read < 3 * min_gap) return false;
    const std::int64_t target = widest_read + (widest_end - widest_read) / 2;
    const auto cut = find_decode_cut(source_input_.spec(), source_.video_stream, target, widest_end - min_gap);
    if (!cut) return false;
    Lane* added = nullptr;
    int index = 0;
    {
        std::lock_guard lock(mu_);
        const auto old_end = widest->bounds->cut_at(*cut, before_start);
        if (!old_end) return false;  // it read that far meanwhile
        index = static_cast<int>(lanes_.size());
        added = &add_lane(*cut, *old_end);
    }
    connect(index);
    start_lane(stages, *added, index);
    return true;
}

bool DecodeLanes::all_read() const {
    std::lock_guard lock(mu_);
    for (const Lane& lane : lanes_)
        if (!lane.read_all) return false;
    return true;
}

// The audio packets from a demuxer of its own, all of them; the track ends
// where the video does, which the last lane says.
void DecodeLanes::read_audio(std::stop_token stop) {
    // --audio-file: audio_tracks are that file's.
    av::InputSpec spec = source_input_.spec();
    if (!source_.audio_path.empty()) {
        spec = av::InputSpec(source_.audio_path);
        spec.stop = source_input_.spec().stop;
    }
    av::InputFile input(std::move(spec));
    AVFormatContext* ic = input.get();
    for (unsigned i = 0; i < ic->nb_streams; ++i)
        if (!audio_->reads(static_cast<int>(i))) ic->streams[i]->discard = AVDISCARD_ALL;
    av::PacketPtr pkt = av::make_packet();
    for (;;) {
        if (stop.stop_requested()) throw Cancelled();
        try {
            if (!read_or_cancel(input, pkt.get())) break;
        } catch (const av::AvError&) {
            break;  // a cut or damaged file: the video lanes say so
        }
        audio_->feed(pkt.get());
        av_packet_unref(pkt.get());
    }
    const auto frames = source_end_.wait(stop);
    if (!frames) throw Cancelled();
    audio_->finish(*frames, source_.frame_rate);
}

void DecodeLanes::note_frames_missing() const {
    if (!separate_audio_) return;  // one pump in one pass: it said so itself
    engine::note_frames_missing(source_input_.get()->streams[source_.video_stream], source_, totals(), progress_);
}

PumpCounters DecodeLanes::totals() const {
    std::lock_guard lock(mu_);
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
    std::lock_guard lock(mu_);
    std::vector<DecodeLaneRecord> out;
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        const PumpCounters& c = lanes_[i].pump->counters();
        out.push_back(DecodeLaneRecord{static_cast<int>(i), lanes_[i].device, c.first_frame, c.end_frame,
                                       c.video_packets, c.frames_decoded, c.busy_seconds, lanes_[i].seconds});
    }
    return out;
}

}  // namespace ladder::engine
