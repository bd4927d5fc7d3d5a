#include "engine/rung/rung.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "av/av_error.hpp"
#include "av/bitexact_scaling.hpp"
#include "av/filter_chain.hpp"
#include "av/hw_device.hpp"
#include "engine/base/errors.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace ladder::engine {

ChunkJoiner::ChunkJoiner(std::string rung_name, int chunk_frames, int lanes)
    : rung_name_(std::move(rung_name)), chunk_frames_(chunk_frames), lanes_left_(lanes) {}

std::optional<RawChunk> ChunkJoiner::add(RawChunk piece, bool ends_source) {
    std::lock_guard lock(mu_);
    const int index = piece.index;
    Pieces& pieces = waiting_[index];
    pieces.ends_source = pieces.ends_source || ends_source;
    const std::int64_t first = piece.first_frame;
    const std::int64_t end = first + static_cast<std::int64_t>(piece.frames.size());
    for (const RawChunk& p : pieces.parts) {
        const std::int64_t p_end = p.first_frame + static_cast<std::int64_t>(p.frames.size());
        if (first < p_end && p.first_frame < end)
            throw RunError(fmt::format("rung {}: frames {} to {} of chunk {} came from two decode lanes", rung_name_,
                                       std::max(first, p.first_frame), std::min(end, p_end) - 1, index));
    }
    auto at = std::find_if(pieces.parts.begin(), pieces.parts.end(),
                           [&](const RawChunk& p) { return p.first_frame > first; });
    pieces.parts.insert(at, std::move(piece));
    return take_if_whole(index);
}

std::optional<RawChunk> ChunkJoiner::take_if_whole(int index) {
    Pieces& pieces = waiting_.at(index);
    std::int64_t next = static_cast<std::int64_t>(index) * chunk_frames_;
    for (const RawChunk& p : pieces.parts) {
        if (p.first_frame != next) return std::nullopt;
        next += static_cast<std::int64_t>(p.frames.size());
    }
    const bool full = next == static_cast<std::int64_t>(index + 1) * chunk_frames_;
    if (!full && !pieces.ends_source) return std::nullopt;
    // The GPU that holds most of the chunk (the first such part on a tie).
    std::size_t home = 0;
    for (std::size_t i = 1; i < pieces.parts.size(); ++i)
        if (pieces.parts[i].frames.size() > pieces.parts[home].frames.size()) home = i;
    const int gpu = pieces.parts[home].gpu;
    for (const RawChunk& p : pieces.parts)
        if ((p.gpu < 0) != (gpu < 0))
            throw RunError(fmt::format("rung {}: chunk {} came partly in GPU memory, partly in host memory (one decode "
                                       "lane fell back to the CPU): use --decode cpu",
                                       rung_name_, index));
    AVBufferRef* pool = gpu >= 0 ? pieces.parts[home].frames.front()->hw_frames_ctx : nullptr;
    RawChunk whole;
    whole.rung = pieces.parts.front().rung;
    whole.index = index;
    whole.first_frame = pieces.parts.front().first_frame;
    whole.gpu = gpu;
    for (RawChunk& p : pieces.parts) {
        for (auto& f : p.frames)
            whole.frames.push_back(p.gpu != gpu && pool ? av::copy_to_gpu_pool(f.get(), pool) : std::move(f));
        whole.bytes += p.bytes;
    }
    if (pieces.ends_source) whole.ends_rung = RungEnd{index + 1, next};
    waiting_.erase(index);
    return whole;
}

bool ChunkJoiner::lane_done(bool reached_source_end) {
    std::lock_guard lock(mu_);
    source_end_seen_ = source_end_seen_ || reached_source_end;
    if (--lanes_left_ > 0) return false;
    if (!waiting_.empty()) {
        const auto& [index, pieces] = *waiting_.begin();
        throw RunError(fmt::format("rung {}: chunk {} is missing frames after every decode lane ended ({} piece(s), "
                                   "the first at frame {})",
                                   rung_name_, index, pieces.parts.size(), pieces.parts.front().first_frame));
    }
    if (!source_end_seen_)
        throw RunError(fmt::format("rung {}: no decode lane reached the source's end", rung_name_));
    return true;
}

}  // namespace ladder::engine

namespace ladder::engine {

void ChunkJoiner::add_lane() {
    std::lock_guard lock(mu_);
    ++lanes_left_;
}

RungCodecInvariant::Verdict RungCodecInvariant::check(const EncodedChunk& chunk) {
    if (chunk.packets.empty()) return {false, {"no packets"}};
    const AVPacket* first = chunk.packets.front().get();
    auto header = mux::parse_sequence_header({first->data, static_cast<std::size_t>(first->size)});
    if (!header) return {false, {"no sequence header in the first packet"}};
    return check(*header);
}

RungCodecInvariant::Verdict RungCodecInvariant::check(const Dav1dSequenceHeader& header) {
    std::lock_guard lock(mu_);
    if (!contract_) {
        contract_ = header;
        return {true, {}};
    }
    auto diffs = mux::sequence_header_differences(*contract_, header, level_);
    return {diffs.empty(), std::move(diffs)};
}

std::optional<Dav1dSequenceHeader> RungCodecInvariant::contract() const {
    std::lock_guard lock(mu_);
    return contract_;
}

Dav1dSequenceHeader RungCodecInvariant::finished_contract(const std::string& rung_name) const {
    const auto c = contract();
    if (!c) throw RunError(fmt::format("rung {}: no sequence header to describe", rung_name));
    return *c;
}

RungScaler::RungScaler(int rung_index, const RungSpec& rung, AVPixelFormat pix_fmt, int chunk_frames,
                       FrameChannel& input, ChunkInlet& output, ChunkJoiner& joiner, MemoryBudget* budget,
                       std::function<bool(RawChunk&)> resume)
    : rung_index_(rung_index),
      rung_(rung),
      pix_fmt_(pix_fmt),
      chunk_frames_(chunk_frames),
      input_(input),
      output_(output),
      joiner_(joiner),
      budget_(budget),
      resume_(std::move(resume)) {}

av::FramePtr RungScaler::scale_on_gpu(av::FramePtr src) {
    // CPU frames of a new size are fitted by the pump (PictureFit); GPU
    // frames are scaled to the rung as they come.
    if (!gpu_chain_ || src->width != gpu_chain_width_ || src->height != gpu_chain_height_) {
        gpu_chain_width_ = src->width;
        gpu_chain_height_ = src->height;
        // scale_cuda converts to a layout CPU encoders take after download:
        // yuv420p directly, 10-bit through p010 (swscale does the rest below).
        const bool ten_bit = pix_fmt_ == AV_PIX_FMT_YUV420P10LE;
        const char* gpu_format = ten_bit ? "p010le" : "yuv420p";
        const AVRational sar = src->sample_aspect_ratio.num > 0 ? src->sample_aspect_ratio : AVRational{1, 1};
        const std::string args = fmt::format("video_size={}x{}:pix_fmt={}:time_base=1/1:pixel_aspect={}/{}", src->width,
                                             src->height, src->format, sar.num, sar.den);
        // scale_cuda's bicubic samples a fixed 4x4 grid of source pixels
        // whatever the ratio, so downscaling aliases (-6 dB PSNR at 1.5x on
        // a noisy 1080p clip); its bilinear widens its taps with the ratio
        // (up to 3x), an area-like filter close to what swscale does.
        std::string chain = fmt::format("scale_cuda=w={}:h={}:format={}:interp_algo=bilinear", rung_.width,
                                        rung_.height, gpu_format);
        if (!keep_on_gpu_) chain += fmt::format(",hwdownload,format={}", gpu_format);
        gpu_chain_ = std::make_unique<av::FilterChain>(false, args, chain, src->hw_frames_ctx);
    }
    auto out = gpu_chain_->push(src.get());
    if (out.size() != 1)
        throw RunError(fmt::format("rung {}: the GPU scaler returned {} frames for one", rung_.name, out.size()));
    out.front()->sample_aspect_ratio = AVRational{1, 1};
    return std::move(out.front());
}

av::FramePtr RungScaler::scale(av::FramePtr src) {
    if (src->format == AV_PIX_FMT_CUDA) {
        src = scale_on_gpu(std::move(src));
        if (src->format == AV_PIX_FMT_CUDA || src->format == pix_fmt_) return src;
    }
    const bool square = src->sample_aspect_ratio.num == src->sample_aspect_ratio.den || src->sample_aspect_ratio.num == 0;
    if (src->width == rung_.width && src->height == rung_.height && square && src->format == pix_fmt_)
        return src;  // same buffers, no copy
    // The same context while the input keeps its size and format.
    sws_.reset(sws_getCachedContext(sws_.release(), src->width, src->height, static_cast<AVPixelFormat>(src->format),
                                    rung_.width, rung_.height, pix_fmt_, SWS_BICUBIC | av::kBitExactScaling, nullptr,
                                    nullptr, nullptr));
    if (!sws_)
        throw RunError(fmt::format("rung {}: cannot scale {}x{} to {}x{}", rung_.name, src->width, src->height,
                                   rung_.width, rung_.height));
    av::FramePtr dst = av::make_frame();
    dst->width = rung_.width;
    dst->height = rung_.height;
    dst->format = pix_fmt_;
    av::check(av_frame_get_buffer(dst.get(), 0), "allocating a scaled frame");
    av::check(av_frame_copy_props(dst.get(), src.get()), "copying frame properties");
    av::check(sws_scale_frame(sws_.get(), dst.get(), src.get()), fmt::format("scaling for rung {}", rung_.name));
    dst->sample_aspect_ratio = AVRational{1, 1};
    return dst;
}

// last: the lane's last piece (the source's last frames when ends_source_).
void RungScaler::emit(std::stop_token stop, bool last) {
    if (pending_.frames.empty()) return;
    RawChunk piece = std::move(pending_);
    pending_ = RawChunk{};
    piece.rung = rung_index_;
    const bool starts_chunk = piece.first_frame == static_cast<std::int64_t>(piece.index) * chunk_frames_;
    const bool ends_source = last && last_ends_source_;
    const bool ends_chunk = static_cast<int>(piece.frames.size()) == chunk_frames_ || ends_source;
    if (starts_chunk && ends_chunk) {
        if (ends_source) piece.ends_rung = RungEnd{piece.index + 1, end_frame_};
        return queue(std::move(piece), stop);
    }
    if (auto whole = joiner_.add(std::move(piece), ends_source)) queue(std::move(*whole), stop);
}

void RungScaler::queue(RawChunk chunk, std::stop_token stop) {
    if (resume_ && resume_(chunk)) return;
    // Host frames are scaled only now: a chunk the journal gives (or a
    // budget pass drops) is never scaled.
    for (auto& frame : chunk.frames)
        if (frame->format != AV_PIX_FMT_CUDA) frame = scale(std::move(frame));
    MemoryBudget* budget = chunk.gpu >= 0 && gpu_budget_ ? gpu_budget_(chunk.gpu) : budget_;
    if (budget) {
        auto reservation = budget->try_reserve(chunk.bytes);
        if (!reservation) {
            // The decode is held up until memory comes back: the consumers
            // learn it from here (the budget calls nobody).
            output_.waiting_for_memory(true);
            reservation = budget->reserve(chunk.bytes, stop);
            output_.waiting_for_memory(false);
        }
        if (!reservation) throw Cancelled();
        chunk.reservation = std::move(*reservation);
    }
    if (!output_.push(std::move(chunk), stop)) throw Cancelled();
}

void RungScaler::run(std::stop_token stop) {
    const auto frame_bytes =
        static_cast<std::size_t>(av_image_get_buffer_size(pix_fmt_, rung_.width, rung_.height, 1));
    while (auto frame = input_.pop(stop)) {
        // The pump numbers frames as in the whole source.
        const std::int64_t n = (*frame)->pts;
        const int index = static_cast<int>(n / chunk_frames_);
        if (!pending_.frames.empty() && index != pending_.index) emit(stop, false);
        if (pending_.frames.empty()) {
            pending_.first_frame = n;
            pending_.index = index;
        }
        // Frames in GPU memory are scaled there at once (the chunk's GPU
        // comes from them); host frames when the chunk is queued.
        pending_.frames.push_back((*frame)->format == AV_PIX_FMT_CUDA ? scale(std::move(*frame)) : std::move(*frame));
        if (pending_.frames.size() == 1)
            pending_.gpu = pending_.frames.front()->format == AV_PIX_FMT_CUDA ? gpu_ : -1;
        pending_.bytes += frame_bytes;
        end_frame_ = n + 1;
        // A full chunk waits for the next frame: only the lane's end says
        // whether it is the rung's last (RawChunk::ends_rung).
    }
    if (stop.stop_requested()) throw Cancelled();
    // The lane's range is final once its frames have all come.
    last_ends_source_ = ends_source_();
    const bool had_frames = !pending_.frames.empty();
    emit(stop, true);
    if (joiner_.lane_done(last_ends_source_ && had_frames)) output_.close();
}

Rung::Rung(RungParts parts, ProgressSink& progress)
    : index_(parts.index),
      spec_(std::move(parts.spec)),
      settings_(parts.settings),
      invariant_(std::move(parts.invariant)),
      rate_(std::move(parts.rate)),
      writer_(std::move(parts.writer)),
      journal_(parts.journal),
      progress_(progress),
      joiner_(spec_.name, parts.chunk_frames, 0),
      chunk_crfs_(std::move(parts.chunk_crfs)) {}

EncoderSettings Rung::settings_for_chunk(int index) const {
    EncoderSettings s = settings_;
    if (chunk_crfs_) s.crf = chunk_crfs_->of(index);
    return s;
}

std::string Rung::journal_key(int index) const {
    return chunk_crfs_ ? budget_journal_key(spec_.name, chunk_crfs_->of(index)) : spec_.name;
}

std::map<int, Rung::Delivered> Rung::delivered() const {
    std::lock_guard lock(delivered_mutex_);
    return delivered_;
}

void Rung::share_by(const ChunkComplexity* complexity) {
    complexity_ = complexity;
    // A session asking by complexity can overshoot where its share was too
    // large: later sessions make it up.
    if (complexity_ && rate_) rate_->make_up_overshoots();
}

RungScaler& Rung::add_scaler(std::unique_ptr<RungScaler> scaler) {
    scalers_.push_back(std::move(scaler));
    return *scalers_.back();
}

Rung::Checked Rung::check(EncodedChunk chunk) {
    auto verdict = invariant_->check(chunk);
    if (!verdict.accepted) return {std::nullopt, std::move(verdict.differences)};
    return {AcceptedChunk(std::move(chunk)), {}};
}

void Rung::deliver(AcceptedChunk accepted, ChunkOrigin origin, double encode_seconds) {
    EncodedChunk& chunk = accepted.chunk_;
    if (origin == ChunkOrigin::encoded && journal_) journal_->record(chunk, journal_key(chunk.index));
    {
        std::lock_guard lock(delivered_mutex_);
        delivered_[chunk.index] = {static_cast<std::int64_t>(chunk.bytes), chunk.frame_count};
    }
    ChunkDone event;
    event.rung = index_;
    event.rung_name = spec_.name;
    event.chunk = chunk.index;
    event.frames = chunk.frame_count;
    event.bytes = chunk.bytes;
    event.slot = chunk.slot_label;
    event.encode_seconds = encode_seconds;
    if (chunk_crfs_) event.crf = chunk_crfs_->of(chunk.index);
    progress_.chunk_done(event);
    if (writer_) writer_->deliver(std::move(chunk));
}

bool Rung::take_from_journal(const RawChunk& raw) {
    if (chunk_crfs_ && chunk_crfs_->sits_out) return true;
    if (!journal_ || !journal_->resuming()) return false;
    bool earlier = false;
    auto chunk = journal_->load(index_, journal_key(raw.index), raw.index, &earlier);
    if (!chunk || chunk->first_frame != raw.first_frame ||
        chunk->frame_count != static_cast<std::int64_t>(raw.frames.size()))
        return false;
    chunk->ends_rung = raw.ends_rung;
    auto checked = check(std::move(*chunk));
    if (!checked.accepted) return false;  // the scaler queues it for encoding
    deliver(std::move(*checked.accepted), ChunkOrigin::journal);
    if (earlier) ++resumed_;  // budget's own earlier passes' chunks are this run's work
    return true;
}

}  // namespace ladder::engine
