#include "engine/source/picture_fit.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "av/bitexact_scaling.hpp"
#include "engine/base/errors.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

namespace {

AVRational sar_of(const AVFrame* f) {
    return f->sample_aspect_ratio.num > 0 && f->sample_aspect_ratio.den > 0 ? f->sample_aspect_ratio : AVRational{1, 1};
}

int even_at_most(double v, int limit) { return std::clamp(static_cast<int>(std::lround(v / 2)) * 2, 2, limit); }

}  // namespace

void PictureFit::start_chain(const AVFrame* frame, AVRational time_base) {
    const AVRational sar = sar_of(frame);
    // In display units, the box is width_ x sar_ by height_; the new
    // picture keeps its own display aspect inside it.
    const double box_w = width_ * av_q2d(sar_);
    const double pic_w = frame->width * av_q2d(sar);
    const double k = std::min(box_w / pic_w, static_cast<double>(height_) / frame->height);
    const int w = even_at_most(pic_w * k / av_q2d(sar_), width_);
    const int h = even_at_most(frame->height * k, height_);
    const std::string args = fmt::format("video_size={}x{}:pix_fmt={}:time_base={}/{}:pixel_aspect={}/{}", frame->width,
                                         frame->height, frame->format, time_base.num, time_base.den, sar.num, sar.den);
    const std::string chain = fmt::format(
        "scale=w={}:h={}:flags={},format=pix_fmts={},pad=w={}:h={}:x=(ow-iw)/2:y=(oh-ih)/2:color=black,"
        "setsar={}/{}",
        w, h, av::kBitExactBicubicFlags, av_get_pix_fmt_name(static_cast<AVPixelFormat>(format_)), width_, height_,
        sar_.num, sar_.den);
    chain_ = std::make_unique<av::FilterChain>(false, args, chain, nullptr);
    chain_width_ = frame->width;
    chain_height_ = frame->height;
    chain_format_ = frame->format;
}

PictureFit::Fitted PictureFit::fit(AVFrame* frame, AVRational time_base) {
    if (format_ < 0) {
        width_ = frame->width;
        height_ = frame->height;
        format_ = frame->format;
        sar_ = sar_of(frame);
        return {};
    }
    if (frame->width == width_ && frame->height == height_ && frame->format == format_) return {};
    Fitted out;
    if (!chain_ || frame->width != chain_width_ || frame->height != chain_height_ || frame->format != chain_format_) {
        start_chain(frame, time_base);
        out.note = fmt::format("the picture changes from {}x{} {} to {}x{} {}: fitted into {}x{} {}, its aspect "
                               "ratio kept, on black",
                               width_, height_, av_get_pix_fmt_name(static_cast<AVPixelFormat>(format_)), frame->width,
                               frame->height, av_get_pix_fmt_name(static_cast<AVPixelFormat>(frame->format)), width_,
                               height_, av_get_pix_fmt_name(static_cast<AVPixelFormat>(format_)));
    }
    const int in_width = frame->width, in_height = frame->height;
    auto frames = chain_->push(frame);
    if (frames.size() != 1)
        throw RunError(fmt::format("fitting a {}x{} frame into {}x{} gave {} frames", in_width, in_height,
                                   width_, height_, frames.size()));
    out.frame = std::move(frames.front());
    return out;
}

}  // namespace ladder::engine
