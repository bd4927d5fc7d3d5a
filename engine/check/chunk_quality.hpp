#pragma once
// --quality: each encoded chunk decoded again (libdav1d) and compared with
// the frames its encoder was given (the source scaled to the rung by the
// rung's scaler) through FFmpeg's own psnr, ssim or xpsnr filter
// (av/frame_metric.hpp). Per chunk, one number; per rung, the mean over all
// its frames and the lowest chunk.
#include <optional>
#include <string>

#include "engine/base/chunk.hpp"

namespace ladder::engine {

enum class QualityMetric { none, psnr, ssim, xpsnr };

// "psnr" ... ; throws InputError for another name, or for xpsnr where this
// FFmpeg build has no xpsnr filter (FFmpeg 7.0 and newer have it).
QualityMetric parse_quality_metric(const std::string& name);
const char* quality_metric_name(QualityMetric metric);

// Throws RunError when the chunk does not decode to the frames it was made of.
ChunkQuality measure_chunk_quality(const EncodedChunk& chunk, const RawChunk& raw, QualityMetric metric);

// The rung's mean over chunks measured so far (value of the same kind).
struct RungQuality {
    double sum = 0;
    long frames = 0;
    int max_sample = 255;
    QualityAveraging averaging = QualityAveraging::plain;
    std::optional<double> min;  // the lowest chunk
    int chunks = 0;

    void add(const ChunkQuality& c);
    double mean() const;
};

}  // namespace ladder::engine
