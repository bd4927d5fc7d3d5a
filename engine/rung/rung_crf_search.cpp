#include "engine/rung/rung_crf_search.hpp"

#include <algorithm>
#include <cmath>

namespace ladder::engine {

double log_size_slope(int crf_a, double size_a, int crf_b, double size_b) {
    if (crf_a == crf_b) return kDefaultLogRatePerCrf;
    const double s = (std::log(std::max(size_a, 1e-3)) - std::log(std::max(size_b, 1e-3))) / (crf_a - crf_b);
    return std::clamp(s, -0.5, -0.01);
}

const char* crf_verdict_name(CrfVerdict verdict) {
    switch (verdict) {
        case CrfVerdict::on_target: return "on_target";
        case CrfVerdict::at_ceiling: return "at_quality_ceiling";
        case CrfVerdict::over_at_max_crf: return "over_at_largest_crf";
        case CrfVerdict::mixed: return "mixed";
        case CrfVerdict::encode_next: return "searching";
        case CrfVerdict::search_limit: return "search_limit";
        case CrfVerdict::under_for_peaks: return "under_for_peaks";
    }
    return "?";
}

}  // namespace ladder::engine
