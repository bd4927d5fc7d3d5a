#pragma once
// FFmpeg's own comparison filters (psnr, ssim, xpsnr) over pairs of frames:
// a two-input filter graph, [distorted][reference]METRIC, whose per-frame
// metadata (lavfi.psnr.mse_avg, lavfi.ssim.All, lavfi.xpsnr.xpsnr.y, ...)
// comes back for each pair. The numbers are the filter's, so they agree with
// `ffmpeg -lavfi psnr` on the same frames.
#include <map>
#include <string>
#include <vector>

#include "av/handles.hpp"

namespace ladder::av {

class FrameMetric {
public:
    // filter: "psnr", "ssim" or "xpsnr"; both inputs are frames of this
    // size and software pixel format. Throws AvError (e.g. the filter is not
    // in this FFmpeg build).
    FrameMetric(const std::string& filter, int width, int height, AVPixelFormat format);

    // Every pair (distorted[i], reference[i]) through the filter; one
    // metadata dictionary per pair, in order. The graph is used once.
    std::vector<std::map<std::string, std::string>> compare(const std::vector<const AVFrame*>& distorted,
                                                            const std::vector<const AVFrame*>& reference);

private:
    FilterGraphPtr graph_;
    AVFilterContext* distorted_ = nullptr;
    AVFilterContext* reference_ = nullptr;
    AVFilterContext* sink_ = nullptr;
};

// Whether this FFmpeg build has the filter.
bool has_filter(const char* name);

}  // namespace ladder::av
