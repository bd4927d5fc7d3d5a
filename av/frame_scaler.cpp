#include "av/frame_scaler.hpp"

#include <fmt/format.h>

#include <utility>

#include "av/av_error.hpp"

extern "C" {
#include <libavutil/opt.h>
}

namespace ladder::av {

FrameScaler::FrameScaler(std::string what, int width, int height, AVPixelFormat format, int threads)
    : what_(std::move(what)),
      width_(width), height_(height), format_(format), threads_(threads < 1 ? 1 : threads) {}

void FrameScaler::fit(const AVFrame& src) {
    if (sws_ && src.width == src_width_ && src.height == src_height_ && src.format == src_format_) return;
    // sws_getCachedContext cannot ask for threads: the options are set one by
    // one, as it sets them, plus the thread count.
    sws_.reset(sws_alloc_context());
    if (!sws_) throw AvError(AVERROR(ENOMEM), fmt::format("{}: no memory for a scaler", what_));
    SwsContext* c = sws_.get();
    check(av_opt_set_int(c, "srcw", src.width, 0), what_);
    check(av_opt_set_int(c, "srch", src.height, 0), what_);
    check(av_opt_set_int(c, "src_format", src.format, 0), what_);
    check(av_opt_set_int(c, "dstw", width_, 0), what_);
    check(av_opt_set_int(c, "dsth", height_, 0), what_);
    check(av_opt_set_int(c, "dst_format", format_, 0), what_);
    check(av_opt_set_int(c, "sws_flags", SWS_BICUBIC, 0), what_);
    check(av_opt_set_int(c, "threads", threads_, 0), what_);
    const int ret = sws_init_context(c, nullptr, nullptr);
    if (ret < 0) {
        sws_.reset();
        check(ret, fmt::format("{}: cannot scale {}x{} to {}x{}", what_, src.width, src.height, width_, height_));
    }
    src_width_ = src.width;
    src_height_ = src.height;
    src_format_ = src.format;
}

FramePtr FrameScaler::scale(const AVFrame& src) {
    fit(src);
    FramePtr dst = make_frame();
    dst->width = width_;
    dst->height = height_;
    dst->format = format_;
    check(av_frame_get_buffer(dst.get(), 0), what_);
    check(av_frame_copy_props(dst.get(), &src), what_);
    check(sws_scale_frame(sws_.get(), dst.get(), &src), what_);
    return dst;
}

}  // namespace ladder::av
