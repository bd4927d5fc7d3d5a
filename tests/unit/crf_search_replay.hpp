#pragma once
// Test equipment for the budget search's unit tests: the measured curves
// replayed (every chunk of six clips' rungs at five CRFs, from
// docs/data/cq-budget-16cores/chunks.csv) and synthetic content whose
// chunks' sizes follow a formula.
#include "engine/rung/rung_crf_search.hpp"

#include "mux/hls_bandwidth.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace ladder::engine::crf_replay {


// The measured curves: every chunk of six clips' four rungs at CRF 20, 30,
// 40, 50 and 63, SVT-AV1 preset 8 on 16 cores
// (docs/data/cq-budget-16cores/chunks.csv). A CRF between two measured ones
// is interpolated per chunk in log size; below 20, extrapolated with the
// 20-30 slope.
struct MeasuredRung {
    double target_kbps = 0;
    double seconds = 0;
    std::map<int, std::vector<std::int64_t>> chunks_at;  // CRF -> chunk bytes
    std::vector<double> chunk_seconds;
};

inline std::map<std::string, MeasuredRung> measured_rungs() {
    const char* dir = std::getenv("LADDER_SOURCE_DIR");
    const std::filesystem::path csv =
        std::filesystem::path(dir ? dir : LADDER_SOURCE_DIR_DEFAULT) / "docs" / "data" / "cq-budget-16cores" / "chunks.csv";
    std::ifstream in(csv);
    std::map<std::string, MeasuredRung> rungs;
    std::string line;
    std::getline(in, line);  // clip,rung,target_kbps,fps,gop,crf,chunk,frames,bytes
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
        if (f.size() != 9) continue;
        auto& r = rungs[f[0] + " " + f[1]];
        r.target_kbps = std::stod(f[2]);
        const auto slash = f[3].find('/');
        const double fps = std::stod(f[3].substr(0, slash)) / std::stod(f[3].substr(slash + 1));
        const int crf = std::stoi(f[5]);
        const auto chunk = static_cast<std::size_t>(std::stoi(f[6]));
        auto& sizes = r.chunks_at[crf];
        if (sizes.size() <= chunk) sizes.resize(chunk + 1);
        sizes[chunk] = std::stoll(f[8]);
        if (r.chunk_seconds.size() <= chunk) r.chunk_seconds.resize(chunk + 1);
        if (r.chunk_seconds[chunk] == 0) {  // the chunk's first row (any CRF: the frames are the same)
            r.seconds += std::stod(f[7]) / fps;
            r.chunk_seconds[chunk] = std::stod(f[7]) / fps;
        }
    }
    return rungs;
}

// A rung of mixed content, longer than any measured one: the six clips'
// chunks of one rung size one after the other (each chunk was its own
// encode, so their sizes add up as they would in one 48-s source).
inline void add_mixed_rungs(std::map<std::string, MeasuredRung>& rungs) {
    for (const char* size : {"1080p", "720p", "540p", "360p"}) {
        MeasuredRung mixed;
        for (const char* clip : {"automaton", "black-hold", "dips", "film-grain", "scene-cuts", "talking-head"}) {
            const MeasuredRung& r = rungs.at(std::string(clip) + " " + size);
            mixed.target_kbps = r.target_kbps;
            mixed.seconds += r.seconds;
            mixed.chunk_seconds.insert(mixed.chunk_seconds.end(), r.chunk_seconds.begin(), r.chunk_seconds.end());
            for (const auto& [crf, sizes] : r.chunks_at)
                mixed.chunks_at[crf].insert(mixed.chunks_at[crf].end(), sizes.begin(), sizes.end());
        }
        rungs[std::string("mixed ") + size] = std::move(mixed);
    }
}

// Each chunk's bytes at a CRF.
inline std::vector<std::int64_t> encode_at(const MeasuredRung& r, int crf) {
    auto hi = r.chunks_at.upper_bound(crf);
    if (hi == r.chunks_at.begin()) ++hi;
    if (hi == r.chunks_at.end()) --hi;
    auto lo = std::prev(hi);
    const double t = static_cast<double>(crf - lo->first) / (hi->first - lo->first);
    std::vector<std::int64_t> bytes;
    for (std::size_t i = 0; i < lo->second.size(); ++i) {
        const double a = std::log(static_cast<double>(lo->second[i]));
        const double b = std::log(static_cast<double>(hi->second[i]));
        bytes.push_back(static_cast<std::int64_t>(std::llround(std::exp(a + t * (b - a)))));
    }
    return bytes;
}

// Each chunk's frames at `fps` (the search needs only their seconds).
inline std::vector<std::int64_t> frames_at(const MeasuredRung& r, double fps) {
    std::vector<std::int64_t> frames;
    for (double s : r.chunk_seconds) frames.push_back(std::llround(s * fps));
    return frames;
}

// What a pass makes of a measured rung at the CRFs its search asks.
inline std::vector<std::int64_t> encode_as_asked(const MeasuredRung& r, const RungCrfSearch& search) {
    std::vector<std::int64_t> bytes;
    for (std::size_t k = 0; k < r.chunk_seconds.size(); ++k)
        bytes.push_back(encode_at(r, search.crf_of(k)).at(k));
    return bytes;
}

// BANDWIDTH over AVERAGE-BANDWIDTH as the playlists compute them
// (mux::peak_bandwidth, RFC 8216's rule, not the search's own windows),
// from the chunks' sizes at their settled CRFs, one segment per chunk.
inline double peak_over_average(const MeasuredRung& r, const std::vector<int>& chunk_crf) {
    std::vector<mux::SegmentSize> segments;
    std::vector<double> durations;
    for (std::size_t k = 0; k < chunk_crf.size(); ++k) {
        const auto bytes = encode_at(r, chunk_crf[k]).at(k);
        segments.push_back({r.chunk_seconds[k], static_cast<std::uint64_t>(bytes)});
        durations.push_back(r.chunk_seconds[k]);
    }
    return static_cast<double>(mux::peak_bandwidth(segments, mux::target_duration(durations))) /
           static_cast<double>(mux::average_bandwidth(segments));
}


inline std::vector<std::int64_t> even_frames(std::size_t chunks, std::int64_t frames) {
    return std::vector<std::int64_t>(chunks, frames / static_cast<std::int64_t>(chunks));
}

inline std::vector<std::int64_t> chunks_at(int crf, double (*kbps_at)(int), int chunks, double seconds) {
    const double bytes = kbps_at(crf) * 1000 / 8 * seconds / chunks;
    return std::vector<std::int64_t>(static_cast<std::size_t>(chunks), static_cast<std::int64_t>(bytes));
}

// Content whose chunks differ: chunk k makes weight[k] x base_kbps x
// e^(-slope CRF) kb/s over its seconds[k].
struct Chunks {
    std::vector<double> weight;
    std::vector<double> seconds;
    double base_kbps = 9000;
    double slope = 0.07;  // log rate per CRF step
    std::vector<std::int64_t> bytes(const RungCrfSearch& search) const {
        std::vector<std::int64_t> out;
        for (std::size_t k = 0; k < weight.size(); ++k)
            out.push_back(std::llround(weight[k] * base_kbps * std::exp(-slope * search.crf_of(k)) * 1000 / 8 *
                                       seconds[k]));
        return out;
    }
    std::vector<std::int64_t> frames() const {
        std::vector<std::int64_t> out;
        for (double s : seconds) out.push_back(std::llround(s * 25));
        return out;
    }
};

inline void search_to_the_end(RungCrfSearch& search, const Chunks& content) {
    for (int pass = 0; pass < 20 && !search.settled(); ++pass) search.record(content.bytes(search), content.frames());
    ASSERT_TRUE(search.settled());
}

}  // namespace ladder::engine::crf_replay
