#pragma once
// Measures each chunk's complexity (ChunkComplexity) while the source is
// decoded. It takes the pump's frames like a rung: its own RungScaler cuts
// a small copy (about 180 lines) into the rungs' chunks, and its encode
// stages (one per decode lane, one thread each) encode each chunk alone with
// SVT-AV1 at its fastest preset and a constant quality. That costs 2-4% of
// the run's CPU. On the corpus at 1080p it runs ahead of the rungs' sessions
// after their first ones; with as many encoder slots as cores and hard
// content at a small size it can fall behind them (report.json's
// `measured_chunks` says what a session started with). Once no rung it
// speaks for can start another session it stops measuring (measure_while).
// A failure of the encode never fails the run: the chunks measured so far
// stay, the rest weigh 1 (with --isolation process its encoder runs in an
// encoder process of its own).
#include <atomic>
#include <functional>
#include <memory>
#include <stop_token>
#include <utility>
#include <vector>

#include "engine/rung/chunk_complexity.hpp"
#include "engine/rung/rung.hpp"
#include "engine/source/decode_lanes.hpp"
#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/rung/rung.hpp"
#include "engine/schedule/segment_chunk_queue.hpp"
#include "engine/source/source_info.hpp"
#include "engine/base/stage_threads.hpp"

namespace ladder::engine {

class ChunkAnalyzer {
public:
    // expected_chunks: the chunks the source (or shard) should have.
    // rung_index: a number no rung has (its chunks never meet the rungs').
    // encoders: where its encoder runs (an encoder process of its own with
    // --isolation process, so that an SVT-AV1 crash costs the analysis,
    // never the run); slot_id: the first of as many ids as there will be
    // lanes that no encoder slot of the run has.
    // lanes: the decode lanes, each with a scaler of its own.
    ChunkAnalyzer(const SourceInfo& source, int chunk_frames, int expected_chunks, int rung_index,
                  EncoderFactory encoders, int slot_id, ProgressSink& progress, int lanes = 1);

    // Whether this FFmpeg build has the analysis encoder.
    static bool available();

    // A decode lane's frames for the analysis: each lane's before start();
    // a lane that starts later after add_lane(), and its scaler starts here.
    void connect(FrameChannel& frames, std::function<bool()> ends_source);
    void add_lane() { joiner_.add_lane(); }
    const ChunkComplexity& complexity() const { return complexity_; }
    // Its stages: a scaler and an encode per lane.
    void start(StageThreads& stages);
    // Chunks are measured only while `wanted` says so (called before each
    // chunk's encode, from the analysis threads): once no rung it speaks
    // for can start another session, nothing reads what it would measure,
    // and the run should not wait for it.
    void measure_while(std::function<bool()> wanted);

    // Whether the analysis speaks for this rung: its short side at most
    // kScaleReach times the analysis copy's. Detail finer than the copy
    // shows weighs in larger rungs: scene-cuts at 1080p lost 0.85 dB
    // against even shares with this analysis, while its 540p and 360p
    // (and dips' 540p and 360p) gained 0.4-0.7 dB (docs/benchmarks.md).
    // Larger rungs get even shares.
    bool covers(const RungSpec& rung) const;
    static constexpr int kScaleReach = 3;

    // The analysis copy of a source of this display size: about 180 lines
    // on the short side, even, never larger than the source.
    static std::pair<int, int> analysis_size(int width, int height);
    static constexpr int kPreset = 13;
    static constexpr int kCrf = 40;

private:
    // Until the queue is drained: every chunk is taken (so the scaler
    // feeding it never blocks the pump for long), measured while measuring works.
    void measure(std::stop_token stop, int encoder);
    bool wanted() const;
    void start_scaler(std::size_t i);
    void start_encoder(std::size_t i);

    EncoderSettings settings_;  // the analysis copy's size, preset and CRF
    EncoderFactory encoders_;
    int slot_id_;  // its first encode's; the one of lane i's is slot_id_ + i
    std::function<bool()> wanted_;  // set before start()
    std::atomic<bool> measuring_{true};  // false once an encode failed
    ProgressSink& progress_;
    ChunkComplexity complexity_;
    SegmentChunkQueue chunks_;
    ChunkJoiner joiner_;
    RungSpec rung_;  // the analysis copy's size
    int rung_index_;
    AVPixelFormat pix_fmt_;
    int chunk_frames_;
    std::vector<std::unique_ptr<RungScaler>> scalers_;
    StageThreads* stages_ = nullptr;  // once started
};

}  // namespace ladder::engine
