#include "engine/check/chunk_quality.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "av/av_error.hpp"
#include "av/frame_metric.hpp"
#include "engine/check/chunk_decode.hpp"
#include "engine/base/errors.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

namespace {

const char* metadata_key(QualityMetric metric) {
    switch (metric) {
        case QualityMetric::psnr: return "lavfi.psnr.mse_avg";
        case QualityMetric::ssim: return "lavfi.ssim.All";
        case QualityMetric::xpsnr: return "lavfi.xpsnr.xpsnr.y";
        case QualityMetric::none: break;
    }
    return "";
}

double psnr_of(double mean_mse, int max_sample) {
    if (mean_mse <= 0) return INFINITY;
    return 10.0 * std::log10(static_cast<double>(max_sample) * max_sample / mean_mse);
}

// A frame's XPSNR in dB is 10 log10(N / e^2) for its root weighted error e
// (N: pixels x peak, the same for every frame), so e / sqrt(N) is
// 10^(-dB / 20); vf_xpsnr averages e over the frames, then takes dB again.
double root_error_of(double db) { return std::pow(10.0, -db / 20.0); }
double xpsnr_of(double mean_root_error) { return mean_root_error <= 0 ? INFINITY : -20.0 * std::log10(mean_root_error); }

double summary(QualityAveraging averaging, double mean, int max_sample) {
    switch (averaging) {
        case QualityAveraging::mse: return psnr_of(mean, max_sample);
        case QualityAveraging::root_error: return xpsnr_of(mean);
        case QualityAveraging::plain: break;
    }
    return mean;
}

// The encoder's input in host memory (frames kept on the GPU are copied).
av::FramePtr host_frame(const AVFrame* f) {
    if (!f->hw_frames_ctx) return av::ref_frame(f);
    av::FramePtr host = av::make_frame();
    av::check(av_hwframe_transfer_data(host.get(), f, 0), "--quality: copying a GPU frame to host memory");
    return host;
}

}  // namespace

QualityMetric parse_quality_metric(const std::string& name) {
    QualityMetric m;
    if (name == "none") return QualityMetric::none;
    if (name == "psnr") m = QualityMetric::psnr;
    else if (name == "ssim") m = QualityMetric::ssim;
    else if (name == "xpsnr") m = QualityMetric::xpsnr;
    else throw InputError(fmt::format("--quality {}: use psnr, ssim, xpsnr or none", name));
    if (!av::has_filter(name.c_str()))
        throw InputError(fmt::format("--quality {}: this FFmpeg build has no {} filter{}", name, name,
                                     m == QualityMetric::xpsnr ? " (FFmpeg 7.0 and newer have it): use psnr or ssim" : ""));
    return m;
}

const char* quality_metric_name(QualityMetric metric) {
    switch (metric) {
        case QualityMetric::psnr: return "psnr";
        case QualityMetric::ssim: return "ssim";
        case QualityMetric::xpsnr: return "xpsnr";
        case QualityMetric::none: break;
    }
    return "none";
}

ChunkQuality measure_chunk_quality(const EncodedChunk& chunk, const RawChunk& raw, QualityMetric metric) {
    std::vector<av::FramePtr> decoded;
    // One thread: on the encoder worker's, after the chunk was checked.
    try {
        decode_chunk(chunk, 1, [&](av::FramePtr f) { decoded.push_back(std::move(f)); });
    } catch (const UndecodableChunk& e) {
        throw RunError(fmt::format("--quality: rung {} chunk {} {}", chunk.rung, chunk.index, e.what()));
    }
    if (decoded.size() != raw.frames.size())
        throw RunError(fmt::format("--quality: rung {} chunk {} decodes to {} frames, not {}", chunk.rung, chunk.index,
                                   decoded.size(), raw.frames.size()));
    std::vector<av::FramePtr> reference;
    for (const auto& f : raw.frames) reference.push_back(host_frame(f.get()));
    const AVFrame& first = *decoded.front();
    const auto format = static_cast<AVPixelFormat>(first.format);
    av::FrameMetric compare(quality_metric_name(metric), first.width, first.height, format);
    std::vector<const AVFrame*> d, r;
    for (const auto& f : decoded) d.push_back(f.get());
    for (const auto& f : reference) r.push_back(f.get());
    const auto values = compare.compare(d, r);
    if (values.size() != decoded.size())
        throw RunError(fmt::format("--quality: {} gave {} values for {} frames", quality_metric_name(metric),
                                   values.size(), decoded.size()));
    ChunkQuality q;
    q.averaging = metric == QualityMetric::psnr    ? QualityAveraging::mse
                  : metric == QualityMetric::xpsnr ? QualityAveraging::root_error
                                                   : QualityAveraging::plain;
    const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(format);
    q.max_sample = (1 << (desc ? desc->comp[0].depth : 8)) - 1;
    for (const auto& v : values) {
        const auto it = v.find(metadata_key(metric));
        if (it == v.end())
            throw RunError(fmt::format("--quality: the {} filter gave no {}", quality_metric_name(metric),
                                       metadata_key(metric)));
        const double value = std::strtod(it->second.c_str(), nullptr);
        q.sum += q.averaging == QualityAveraging::root_error ? root_error_of(value) : value;
        ++q.frames;
    }
    q.value = summary(q.averaging, q.sum / static_cast<double>(q.frames), q.max_sample);
    return q;
}

void RungQuality::add(const ChunkQuality& c) {
    sum += c.sum;
    frames += c.frames;
    max_sample = c.max_sample;
    averaging = c.averaging;
    min = min ? std::min(*min, c.value) : c.value;
    ++chunks;
}

double RungQuality::mean() const {
    if (frames == 0) return 0;
    return summary(averaging, sum / static_cast<double>(frames), max_sample);
}

}  // namespace ladder::engine
