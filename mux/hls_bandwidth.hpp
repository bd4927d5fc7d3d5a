#pragma once
// Numbers in playlists that are computed from segments: TARGETDURATION
// (RFC 8216 §4.3.3.1) and BANDWIDTH / AVERAGE-BANDWIDTH (§4.3.4.2).
#include <cstdint>
#include <vector>

namespace ladder::mux {

struct SegmentSize {
    double duration = 0;      // seconds (the EXTINF value)
    std::uint64_t bytes = 0;  // whole segment file, container overhead included
};

// The smallest integer that every EXTINF, rounded to the nearest integer
// (halves up), is less than or equal to; at least 1.
int target_duration(const std::vector<double>& extinf_seconds);

// Peak segment bit rate in bits/s: the highest bit rate of any run of
// contiguous segments whose total duration is 0.5 to 1.5 times the target
// duration. When no run qualifies, the highest single-segment rate.
std::uint64_t peak_bandwidth(const std::vector<SegmentSize>& segments, int target_duration);

// Total bits over total duration, in bits/s (rounded up).
std::uint64_t average_bandwidth(const std::vector<SegmentSize>& segments);

}  // namespace ladder::mux
