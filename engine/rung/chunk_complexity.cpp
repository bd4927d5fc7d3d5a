#include "engine/rung/chunk_complexity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ladder::engine {

namespace {
// A chunk that made (almost) nothing, black frames, still counts as a
// little work, so that its power stays finite and its weight small.
constexpr double kFloorBitsPerFrame = 8.0;

double effort(double bits_per_frame) {
    return std::pow(std::max(bits_per_frame, kFloorBitsPerFrame), ChunkComplexity::kExponent);
}
}  // namespace

void ChunkComplexity::record(int chunk, double bits_per_frame) {
    std::lock_guard lock(mu_);
    bits_per_frame_[chunk] = bits_per_frame;
}

int ChunkComplexity::measured() const {
    std::lock_guard lock(mu_);
    return static_cast<int>(bits_per_frame_.size());
}

double ChunkComplexity::weight(int first, int count) const {
    std::lock_guard lock(mu_);
    return weight_locked(first, static_cast<long long>(first) + count);
}

double ChunkComplexity::weight_from(int first) const {
    std::lock_guard lock(mu_);
    return weight_locked(first, std::numeric_limits<long long>::max());
}

double ChunkComplexity::weight_locked(int first, long long end) const {
    double range_sum = 0;
    int range_n = 0;
    for (auto it = bits_per_frame_.lower_bound(first); it != bits_per_frame_.end() && it->first < end; ++it) {
        range_sum += effort(it->second);
        ++range_n;
    }
    if (range_n == 0) return 1.0;
    double all_sum = 0;
    for (const auto& [chunk, bits] : bits_per_frame_) all_sum += effort(bits);
    const double measured = static_cast<double>(bits_per_frame_.size());
    const double all_mean = all_sum / measured;
    const double known = expected_chunks_ > 0 ? std::min(1.0, measured / expected_chunks_) : 1.0;
    const double share = 1.0 + (range_sum / range_n / all_mean - 1.0) * known;
    return std::clamp(share, kMinWeight, kMaxWeight);
}

}  // namespace ladder::engine
