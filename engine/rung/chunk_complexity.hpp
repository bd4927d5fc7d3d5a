#pragma once
// How hard each chunk of the source is to encode, and the share of a rung's
// bits a run of chunks should get from it.
//
// Every session of a rung used to ask for the same rate. On content that
// swings (scene cuts, fades) that gives a near-still stretch as many bits as
// a hard one: the still stretch cannot spend them (the rung comes out under
// target) and the hard one starves (the picture is worse at the same
// rate). SVT-AV1 per 2-s chunk, scene-cuts 360p at 600 kb/s: 434 kb/s and
// 30.08 dB with even shares, 565 kb/s and 32.15 dB with shares from this
// measure (docs/benchmarks.md). The measure is the bits per frame of a
// fast constant-quality encode of a small copy of each chunk (ChunkAnalyzer);
// its per-chunk bits follow those of a 360p rung's own constant-quality
// encodes (correlation 0.97-1.00 on the clips whose chunks differ), less
// so those of larger rungs (0.75 at 720p on scene-cuts: ChunkAnalyzer::covers).
#include <map>
#include <mutex>

namespace ladder::engine {

class ChunkComplexity {
public:
    // expected_chunks: how many chunks the source has (an estimate; 0:
    // unknown, every share is taken at its word).
    explicit ChunkComplexity(int expected_chunks = 0) : expected_chunks_(expected_chunks) {}

    // Bits per frame of the chunk's analysis encode.
    void record(int chunk, double bits_per_frame);
    // The share of the rung's average rate that chunks [first, first +
    // count) should get: the mean of complexity^kExponent over the measured
    // chunks of the range, over that mean for every chunk measured so far,
    // within [kMinWeight, kMaxWeight]. 1 while none of the range is measured.
    // While part of the source is measured, that mean may be far from the
    // whole source's (the first seconds may all be easy), so the share is
    // drawn towards 1 by the part not measured yet: with 4 of 12 chunks
    // measured, a share of 1.36 is taken as 1.12.
    double weight(int first, int count) const;
    // The same for every chunk from `first` on: the mean share of what is
    // left of the source when a session starts at `first`.
    double weight_from(int first) const;
    int measured() const;

    // Bits grow with complexity at a constant quality; a fixed rate spreads
    // them evenly. In between, as two-pass encoders do (x264's qcomp 0.6):
    // hard stretches get more, not all they would take.
    static constexpr double kExponent = 0.6;
    // A hard chunk may not take so much that its segment's rate breaks
    // HLS's peak of twice the average; a still one keeps enough to start
    // its key frame well.
    static constexpr double kMaxWeight = 1.75;
    static constexpr double kMinWeight = 0.25;

private:
    // weight() of the measured chunks in [first, end).
    double weight_locked(int first, long long end) const;

    int expected_chunks_;
    mutable std::mutex mu_;  // the complexity record's own: guards bits_per_frame_; a leaf
    std::map<int, double> bits_per_frame_;
};

}  // namespace ladder::engine
