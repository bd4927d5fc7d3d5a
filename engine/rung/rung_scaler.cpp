#include "engine/rung/rung_scaler.hpp"

#include <fmt/format.h>

#include "av/av_error.hpp"
#include "av/filter_chain.hpp"
#include "engine/base/errors.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace ladder::engine {

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
                                    rung_.width, rung_.height, pix_fmt_, SWS_BICUBIC, nullptr, nullptr, nullptr));
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
        pending_.frames.push_back(scale(std::move(*frame)));
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

}  // namespace ladder::engine
