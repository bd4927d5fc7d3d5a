#include "mux/hls_bandwidth.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ladder::mux {

namespace {

using u64 = std::uint64_t;

constexpr u64 kMax = std::numeric_limits<u64>::max();
constexpr u64 kMicrosPerSecond = 1'000'000;
// About 11.5 days: longer than any real segment, small enough that sums of
// millions of segments cannot overflow. Guards against hostile playlists.
constexpr u64 kMaxSegmentMicros = 1'000'000'000'000ULL;

// Durations are handled as whole microseconds: EXTINF carries at most 6
// decimals when ladder writes it, and integer sums make the 0.5-1.5 x target
// window bounds exact (2.002 + 0.998 is exactly 3 s, not 2.9999999999999996).
u64 to_micros(double seconds) {
    if (!(seconds > 0)) return 0;  // also NaN
    const double us = std::round(seconds * static_cast<double>(kMicrosPerSecond));
    if (!(us < static_cast<double>(kMaxSegmentMicros))) return kMaxSegmentMicros;
    return static_cast<u64>(us);
}

u64 saturating_add(u64 a, u64 b) { return b > kMax - a ? kMax : a + b; }

u64 bits_of(u64 bytes) { return bytes > kMax / 8 ? kMax : bytes * 8; }

// ceil(bits / (micros / 1e6)) in integers, so an exact rate is never pushed
// up by one by binary rounding. 0 when there is no duration.
u64 rate_ceil(u64 bits, u64 micros) {
    if (micros == 0) return 0;
    if (micros > kMax / (kMicrosPerSecond + 1)) {  // over 200 days: only hostile input gets here
        const long double rate = std::ceil(static_cast<long double>(bits) * kMicrosPerSecond / micros);
        return rate < static_cast<long double>(kMax) ? static_cast<u64>(rate) : kMax;
    }
    const u64 whole = bits / micros;
    const u64 rest = bits % micros;  // rest < micros, so rest * 1e6 + micros fits
    if (whole > kMax / kMicrosPerSecond) return kMax;
    return saturating_add(whole * kMicrosPerSecond, (rest * kMicrosPerSecond + micros - 1) / micros);
}

struct Run {
    u64 bits = 0;
    u64 micros = 0;
};

}  // namespace

int target_duration(const std::vector<double>& extinf_seconds) {
    int target = 1;
    for (const double d : extinf_seconds) {
        if (!(d > 0)) continue;  // zero, negative or NaN: never raises the target
        const double rounded = std::floor(d + 0.5);
        if (!(rounded < static_cast<double>(std::numeric_limits<int>::max()))) return std::numeric_limits<int>::max();
        target = std::max(target, static_cast<int>(rounded));
    }
    return target;
}

std::uint64_t peak_bandwidth(const std::vector<SegmentSize>& segments, int target_duration) {
    std::vector<Run> runs;
    runs.reserve(segments.size());
    for (const auto& s : segments) runs.push_back({bits_of(s.bytes), to_micros(s.duration)});

    bool qualified = false;
    u64 peak = 0;
    if (target_duration > 0) {
        const u64 td = static_cast<u64>(target_duration) * kMicrosPerSecond;
        const u64 shortest = td / 2;  // 0.5 x target, exact: td is a multiple of 1e6
        const u64 longest = td + td / 2;
        // Every start, extended while the run still fits: quadratic only in
        // the number of segments that fit in 1.5 x target duration.
        for (std::size_t i = 0; i < runs.size(); ++i) {
            Run run;
            for (std::size_t j = i; j < runs.size(); ++j) {
                run.micros = saturating_add(run.micros, runs[j].micros);
                if (run.micros > longest) break;
                run.bits = saturating_add(run.bits, runs[j].bits);
                if (run.micros < shortest) continue;
                qualified = true;
                peak = std::max(peak, rate_ceil(run.bits, run.micros));
            }
        }
    }
    if (qualified) return peak;

    for (const auto& r : runs) peak = std::max(peak, rate_ceil(r.bits, r.micros));
    return peak;
}

std::uint64_t average_bandwidth(const std::vector<SegmentSize>& segments) {
    u64 bits = 0;
    u64 micros = 0;
    for (const auto& s : segments) {
        bits = saturating_add(bits, bits_of(s.bytes));
        micros = saturating_add(micros, to_micros(s.duration));
    }
    return rate_ceil(bits, micros);
}

}  // namespace ladder::mux
