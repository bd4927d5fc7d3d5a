#include "engine/source/decode_lanes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "av/av_error.hpp"
#include "av/bitexact_scaling.hpp"
#include "av/compat.hpp"
#include "av/hw_device.hpp"
#include "av/logging.hpp"
#include "engine/base/errors.hpp"
#include "engine/source/decode_cuts.hpp"
#include "engine/source/decoded_frames.hpp"
#include "engine/source/source_info.hpp"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

DecodePump::DecodePump(av::InputFile& input, const SourceInfo& source, std::vector<FrameChannel*> outputs,
                       AudioTracks* audio, ProgressSink& progress, av::BufferRefPtr hw_device)
    : input_(input),
      source_(source),
      outputs_(std::move(outputs)),
      audio_(audio),
      progress_(progress),
      hw_device_(std::move(hw_device)) {}

void DecodePump::run(std::stop_token stop) {
    const auto started = std::chrono::steady_clock::now();
    auto measure = [&] {
        counters_.busy_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() - blocked_seconds_;
    };
    // Until the first frame decodes, the decoder's complaints are kept: when
    // none ever does, they are what the user needs to read.
    std::optional<av::LibraryLogCapture> before_first_frame(std::in_place);
    try {
        if (replay_)
            replay_all(stop);
        else
            decode_all(stop, before_first_frame);
        // Checked before the channels close: a consumer that saw them closed
        // with no frame would report its own, misleading error first.
        if (counters_.frames_normalized == 0) throw no_video_frame(before_first_frame ? before_first_frame->text() : "");
    } catch (const av::AvError& e) {
        if (audio_) audio_->abandon();
        measure();
        if (counters_.frames_decoded == 0)
            throw no_video_frame(before_first_frame && !before_first_frame->text().empty()
                                     ? fmt::format("{}: {}", av::error_string(e.code()), before_first_frame->text())
                                     : av::error_string(e.code()));
        throw;
    } catch (...) {
        if (audio_) audio_->abandon();
        measure();
        throw;
    }
    measure();
    // The decode's time is the pass's that decoded (handing kept frames on
    // costs next to nothing).
    if (replay_) counters_.busy_seconds = replay_part_.first_part ? replay_->decoded().busy_seconds : 0;
    if (!range_ && !replay_) report_damage(!lane_);  // a replay's pass said so
    const bool ends_source = replay_ ? replay_part_.last_part : !lane_done_;
    if (lane_ && ends_source && lane_->source_end) lane_->source_end->set(counters_.end_frame);
    close_outputs();
    if (lane_ && lane_->frames_handed_on)
        progress_.decode_progress(lane_->frames_handed_on->load(), source_.estimated_frames);
    else
        progress_.decode_progress(counters_.frames_normalized, counters_.frames_normalized);
}

void DecodePump::decode_all(std::stop_token stop, std::optional<av::LibraryLogCapture>& before_first_frame) {
    AVStream* vs = input_.get()->streams[source_.video_stream];
    decoder_ = hw_device_ ? av::open_hw_decoder(vs, hw_device_.get(), AV_PIX_FMT_CUDA) : av::open_decoder(vs, 0);
    // Only the streams ladder uses are demuxed at all.
    for (unsigned i = 0; i < input_.get()->nb_streams; ++i)
        if (static_cast<int>(i) != source_.video_stream && !(audio_ && audio_->reads(static_cast<int>(i))))
            input_.get()->streams[i]->discard = AVDISCARD_ALL;

    if (range_) seek_to_range();
    if (lane_ && lane_->start_pts != AV_NOPTS_VALUE) seek_to_lane_start();
    av::PacketPtr pkt = av::make_packet();
    while (!stop.stop_requested() && !range_done_ && !lane_read_all_ && read_packet(pkt.get())) {
        if (pkt->stream_index == source_.video_stream) {
            if (lane_ && lane_stops_at(pkt.get())) {
                av_packet_unref(pkt.get());
                continue;
            }
            if (next_lane_key_) decode_next_lane_key(stop);
            ++counters_.video_packets;
            if (pkt->flags & AV_PKT_FLAG_CORRUPT) ++counters_.damaged;
            decode_video(pkt.get(), stop);
        } else if (audio_ && audio_->reads(pkt->stream_index)) {
            audio_->feed(pkt.get());
        }
        av_packet_unref(pkt.get());
        if (before_first_frame && counters_.frames_decoded > 0) {
            before_first_frame->replay();  // warnings about a source that decodes after all
            before_first_frame.reset();
        }
    }
    if (stop.stop_requested()) throw Cancelled();
    if (before_lane_)
        throw RunError(fmt::format("input {}: the key frame at timestamp {} where a decode lane starts was not found "
                                   "after seeking: decode it in one pass with --decoders 1",
                                   source_.path, lane_->start_pts));
    if (!range_done_) {
        decode_video(nullptr, stop);
        // A lane ends where the next one starts: the constant-rate step
        // makes the frames before that key frame's time, no more.
        const std::int64_t end = lane_done_ ? lane_end_ : end_pts_;
        if (normalizer_)
            for (auto& f : normalizer_->close(end)) fan_out(std::move(f), stop);
    }
    if (range_ && counters_.frames_normalized != range_->end - range_->first)
        throw RunError(fmt::format("input {}: frames {} to {} were planned here, but the source gave {} of them: "
                                   "it is not the source that was planned (make a new plan)",
                                   source_.path, range_->first, range_->end - 1, counters_.frames_normalized));
    if (audio_)
        audio_->finish(counters_.frames_normalized, source_.frame_rate);
}

// The kept frames, numbered as the pass that decoded them numbered them;
// the counters are that pass's (what the source's decode read).
void DecodePump::replay_all(std::stop_token stop) {
    const PumpCounters& decoded = replay_->decoded();
    counters_.origin_pts = decoded.origin_pts;
    origin_known_ = true;
    const std::vector<const AVFrame*> kept = replay_->frames();
    const std::size_t end = std::min(replay_part_.end, kept.size());
    for (std::size_t i = replay_part_.first; i < end; ++i) {
        if (stop.stop_requested()) throw Cancelled();
        hand_on(av::ref_frame(kept[i]), kept[i]->pts, stop);
    }
    if (!replay_part_.first_part) return;
    counters_.video_packets = decoded.video_packets;
    counters_.frames_decoded = decoded.frames_decoded;
    counters_.frames_on_gpu = decoded.frames_on_gpu;
    counters_.damaged = decoded.damaged;
}

bool DecodePump::read_packet(AVPacket* pkt) {
    try {
        return read_or_cancel(input_, pkt);
    } catch (const av::AvError& e) {
        // A read error after good data is a cut or damaged file: keep what
        // came before (report_damage() says so); before any, it is fatal.
        if (counters_.frames_decoded == 0) throw;
        read_error_ = e.what();
        return false;
    }
}

void DecodePump::close_outputs() {
    for (auto* ch : outputs_) ch->close();
}

void DecodePump::decode_video(const AVPacket* pkt, std::stop_token stop) {
    int ret = avcodec_send_packet(decoder_.get(), pkt);
    if (ret == AVERROR_INVALIDDATA) {  // damaged packet: the decoder conceals, the fps step fills the gap
        ++counters_.damaged;
        return;
    }
    if (ret != AVERROR_EOF) av::check(ret, fmt::format("decoding video of {}", source_.path));
    av::FramePtr frame = av::make_frame();
    for (;;) {
        ret = avcodec_receive_frame(decoder_.get(), frame.get());
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return;
        if (ret == AVERROR_INVALIDDATA) {
            ++counters_.damaged;
            continue;
        }
        av::check(ret, fmt::format("decoding video of {}", source_.path));
        ++counters_.frames_decoded;
        if (frame->decode_error_flags != 0 || (frame->flags & AV_FRAME_FLAG_CORRUPT)) ++counters_.damaged;
        if (lane_done_ && frame->best_effort_timestamp != AV_NOPTS_VALUE && frame->best_effort_timestamp >= lane_end_) {
            av_frame_unref(frame.get());  // the next lane's key frame, decoded here for its leading pictures
            continue;
        }
        if (frame->format == AV_PIX_FMT_CUDA) {
            ++counters_.frames_on_gpu;
            if (!gpu_copier_) gpu_copier_ = std::make_unique<av::GpuFrameCopier>();
            av::FramePtr copy = gpu_copier_->copy(frame.get());
            av_frame_unref(frame.get());  // the decoder's surface goes back now
            normalize(copy.get(), stop);
            continue;
        } else if (hw_device_ && counters_.frames_decoded == 1) {
            progress_.note(NoteLevel::warning,
                           fmt::format("input {}: NVDEC did not take this stream ({} {}); decoding it on the CPU",
                                       source_.path, source_.codec_name,
                                       av_get_pix_fmt_name(static_cast<AVPixelFormat>(frame->format))));
        }
        normalize(frame.get(), stop);
        av_frame_unref(frame.get());
    }
}

void DecodePump::normalize(AVFrame* frame, std::stop_token stop) {
    const AVStream* vs = input_.get()->streams[source_.video_stream];
    const std::int64_t best_effort = frame->best_effort_timestamp;
    PictureFit::Fitted fitted;
    if (frame->format != AV_PIX_FMT_CUDA) {
        fitted = fit_.fit(frame, vs->time_base);
        if (fitted.note) progress_.note(NoteLevel::warning, fmt::format("input {}: {}", source_.path, *fitted.note));
        if (fitted.frame) frame = fitted.frame.get();
    }
    if (!normalizer_) {
        const AVRational tb = vs->time_base;
        const AVRational sar = frame->sample_aspect_ratio.num > 0 ? frame->sample_aspect_ratio : source_.sample_aspect;
        const std::string args =
            fmt::format("video_size={}x{}:pix_fmt={}:time_base={}/{}:pixel_aspect={}/{}", frame->width, frame->height,
                        frame->format, tb.num, tb.den, sar.num, sar.den);
        const bool on_gpu = frame->format == AV_PIX_FMT_CUDA;
        // Frames in GPU memory keep their layout here: scale_cuda converts
        // per rung, where the frames are made smaller first. (Rotated and
        // interlaced sources are decoded on the CPU: see device_plan.)
        std::string chain;
        if (!on_gpu && (source_.interlaced || av::frame_is_interlaced(frame))) {
            // One frame per frame (not per field): the rate stays the
            // source's; deint=interlaced leaves progressive frames alone.
            chain += "bwdif=mode=send_frame:parity=auto:deint=interlaced,";
            if (!source_.interlaced)
                progress_.note(NoteLevel::info, fmt::format("input {}: interlaced frames: deinterlacing them (bwdif)",
                                                            source_.path));
        }
        if (!on_gpu && source_.rotation == 90) chain += "transpose=clock,";
        if (!on_gpu && source_.rotation == 180) chain += "hflip,vflip,";
        if (!on_gpu && source_.rotation == 270) chain += "transpose=cclock,";
        chain += fmt::format("fps=fps={}/{}", source_.frame_rate.num, source_.frame_rate.den);
        // FFmpeg's own RGB-to-YUV step would use BT.601 whatever the size:
        // the matrix and range are the ones the outputs are tagged with.
        if (!on_gpu && source_.rgb_picture)
            chain += fmt::format(",scale=out_color_matrix={}:out_range=tv:flags={}",
                                 source_.colorspace == AVCOL_SPC_BT709 ? "bt709" : "bt601", av::kBitExactBicubicFlags);
        else if (!on_gpu && source_.to_limited_range)
            // in_range said, not guessed: FFmpeg 5.1 takes only yuvj formats
            // for full range, 7.x negotiates ranges from the frames' tags.
            chain += fmt::format(",scale=in_range=pc:out_range=tv:flags={}", av::kBitExactBicubicFlags);
        if (!on_gpu) chain += fmt::format(",format=pix_fmts={}", av_get_pix_fmt_name(source_.pix_fmt));
        normalizer_ = std::make_unique<av::FilterChain>(false, args, chain, on_gpu ? frame->hw_frames_ctx : nullptr);
    }
    std::int64_t ts = best_effort;
    if (ts == AV_NOPTS_VALUE)
        ts = av_rescale_q(counters_.frames_decoded - 1, av_inv_q(source_.frame_rate), vs->time_base);
    frame->pts = ts;
    // The stream ends one frame duration after the latest frame.
    end_pts_ = std::max(end_pts_, ts + std::max<std::int64_t>(1, av_rescale_q(1, av_inv_q(source_.frame_rate), vs->time_base)));
    for (auto& f : normalizer_->push(frame)) fan_out(std::move(f), stop);
}

void DecodePump::seek_to_range() {
    // A timeline with jumps is read from its start: a seek by time could
    // land in the wrong part of it.
    if (range_->first <= 0 || !source_.timestamp_jumps.empty()) return;
    const AVStream* vs = input_.get()->streams[source_.video_stream];
    // Two frames early: the constant-rate step picks, for each frame, the
    // latest source frame at or before it, which may start a little earlier.
    const std::int64_t target = av_rescale_q(range_->origin_pts + range_->first - 2, av_inv_q(source_.frame_rate),
                                             vs->time_base);
    // At or before target: a key frame, whatever the container's index says.
    const int ret = avformat_seek_file(input_.get(), source_.video_stream, INT64_MIN, target, target, 0);
    if (ret < 0)
        throw RunError(fmt::format("input {}: cannot seek to frame {} ({}): a shard needs a seekable source",
                                   source_.path, range_->first, av::error_string(ret)));
}

void DecodePump::fan_out(av::FramePtr frame, std::stop_token stop) {
    if (!origin_known_) {
        counters_.origin_pts = frame->pts;
        origin_known_ = true;
    }
    std::int64_t number = counters_.frames_normalized;  // one pass from the source's start
    if (range_) {
        // The frame's number in the whole source, from its timestamp.
        const std::int64_t n = frame->pts - range_->origin_pts;
        if (n < range_->first) return;
        if (n >= range_->end) {
            range_done_ = true;
            return;
        }
        if (n != range_->first + counters_.frames_normalized)
            throw RunError(fmt::format("input {}: frame {} came where frame {} was planned: the source's timestamps "
                                       "differ from the planned ones (make a new plan)",
                                       source_.path, n, range_->first + counters_.frames_normalized));
        number = n;
    } else if (lane_) {
        number = lane_frame_number(frame.get(), stop);
    }
    hand_on(std::move(frame), number, stop);
}

// The frame, numbered, to every consumer (and to the kept frames).
void DecodePump::hand_on(av::FramePtr frame, std::int64_t number, std::stop_token stop) {
    if (counters_.frames_normalized == 0) counters_.first_frame = number;
    counters_.end_frame = number + 1;
    // Downstream, a frame's timestamp is its number in the whole source.
    frame->pts = number;
    ++counters_.frames_normalized;
    if (keep_) keep_->keep(frame.get());
    // Time spent waiting for room downstream is not decoding time.
    const auto waiting = std::chrono::steady_clock::now();
    for (auto* ch : outputs_) {
        if (!ch->push(av::ref_frame(frame.get()), stop)) throw Cancelled();
    }
    blocked_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - waiting).count();
    // The last report comes from run(), with the real total.
    const std::int64_t handed_on =
        lane_ && lane_->frames_handed_on ? lane_->frames_handed_on->fetch_add(1) + 1 : counters_.frames_normalized;
    if (handed_on % 25 == 0 && handed_on < source_.estimated_frames)
        progress_.decode_progress(handed_on, source_.estimated_frames);
}

DecodeLanes::DecodeLanes(av::InputFile& source_input, const SourceInfo& source, const std::vector<std::int64_t>& cuts,
                         int consumers, std::size_t channel_capacity, AudioTracks* audio, ProgressSink& progress,
                         std::vector<Device> devices, bool growable, FramesReplay replay)
    : source_input_(source_input),
      source_(source),
      consumers_(consumers),
      channel_capacity_(channel_capacity),
      audio_(audio),
      progress_(progress),
      devices_(std::move(devices)),
      replay_(replay.frames),
      // Audio from --audio-file is read by a stage of its own, on that file.
      separate_audio_(growable || !cuts.empty() || (audio && !source.audio_path.empty()) || replay.frames) {
    if (replay_ && (growable || !cuts.empty()))
        throw std::logic_error("DecodeLanes: kept frames are not decoded: no cuts, no growth");
    if (replay_) {
        add_replay_lanes(replay);
        return;
    }
    for (std::size_t i = 0; i <= cuts.size(); ++i)
        add_lane(i == 0 ? AV_NOPTS_VALUE : cuts[i - 1], i == cuts.size() ? AV_NOPTS_VALUE : cuts[i]);
}

DecodeLanes::Lane& DecodeLanes::add_lane(std::int64_t start_pts, std::int64_t end_pts) {
    const std::size_t i = lanes_.size();
    Lane& lane = lanes_.emplace_back();
    // (Kept frames are handed on without reading the source.)
    if (i > 0 && !replay_) lane.own_input = std::make_unique<av::InputFile>(source_input_.spec());
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
    if (keep_) lane.pump->keep_in(keep_);
    return lane;
}

void DecodeLanes::add_replay_lanes(const FramesReplay& replay) {
    const std::size_t frames = replay.frames->frames().size();
    const auto chunk = static_cast<std::size_t>(std::max(1, replay.chunk_frames));
    const std::size_t chunks = std::max<std::size_t>(1, (frames + chunk - 1) / chunk);
    const std::size_t lanes = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1, replay.lanes)), 1, chunks);
    for (std::size_t i = 0; i < lanes; ++i) {
        const bool last = i + 1 == lanes;
        // Not a timestamp: a lane's end only says whether it is the source's.
        Lane& lane = add_lane(AV_NOPTS_VALUE, last ? AV_NOPTS_VALUE : 0);
        lane.pump->replay_from(replay.frames, ReplayPart{std::min(frames, i * chunks / lanes * chunk),
                                                         last ? frames : std::min(frames, (i + 1) * chunks / lanes * chunk),
                                                         i == 0, last});
    }
}

void DecodeLanes::keep_in(DecodedFrames* frames) {
    std::lock_guard lock(mu_);
    keep_ = frames;
    for (Lane& lane : lanes_) lane.pump->keep_in(frames);
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
    if (!separate_audio_ || replay_) return false;
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
