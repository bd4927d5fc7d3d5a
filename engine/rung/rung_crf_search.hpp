#pragma once
// The constant-quality level of one rung, found from the rung's own encodes
// at the preset it is delivered at (issue 43's closed loop; measured in
// docs/benchmarks.md, "Constant quality per rung"). A rung is encoded at
// CRFs; what its chunks made decides which CRF each chunk takes. Pure: no
// clock, no threads, no encoder, so the same encodes give the same
// decision on any machine, in a shard or a resumed run (the decisions can
// be recorded and replayed).
//
// The rule for a rung's rate (README "What a rung's bit rate means"): the
// target is both the average to aim for and a ceiling. A rung settles
//  - on target: its average within ±tolerance of the target;
//  - at the quality ceiling: under the band at ladder's best quality for it
//    (the ceiling CRF, where more bits buy nothing visible); never padded;
//  - over at the largest CRF: the encoder's smallest output is still over
//    the band (the caller must report it: the rung cannot meet its target);
//  - mixed: no whole CRF lands in the band (a CRF step moves the rate 5-10%
//    on most content, more on some), so some segments take the next lower
//    CRF, to come as close to the target as the chunks allow without
//    passing it;
//  - under for peaks: more would put a segment over twice the average.
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace ladder::engine {

// SVT-AV1's CRF range as libavcodec takes it.
inline constexpr int kMaxCrf = 63;
// Ladder's best quality for a rung (docs/benchmarks.md, "Where is the
// quality ceiling?": CRF 10 spends 3027 kb/s on talking-head's 1080p, at
// 50 dB from CRF 31 and 861 kb/s; a grainy 360p spends its target near
// CRF 14 at 48 dB).
inline constexpr int kCeilingCrf = 10;
// When a chunk has one encode: the rate falls by half every 10 CRF steps
// (the corpus's median, docs/data/cq-budget-16cores/fixed-slope.md).
inline constexpr double kDefaultLogRatePerCrf = -0.0693;

struct CrfBudget {
    double target_kbps = 0;
    double seconds = 0;  // the rung's length
    double tolerance = 0.05;
    int ceiling_crf = kCeilingCrf;
};

// search_limit: the search ended at its limit of encodes (RungCrfSearch):
// each chunk at the nearest CRF made above the one planned.
// under_for_peaks: under the band because a segment would pass
// RungCrfSearch::kPeakLimit x the average at a lower CRF.
enum class CrfVerdict { on_target, at_ceiling, over_at_max_crf, mixed, encode_next, search_limit, under_for_peaks };

// "on_target", "at_quality_ceiling", ...: report.json's words.
const char* crf_verdict_name(CrfVerdict verdict);

struct CrfChoice {
    CrfVerdict verdict = CrfVerdict::encode_next;
    // encode_next: the CRF asked next for the segments not capped;
    // otherwise the rung's CRF (mixed: the lower).
    int crf = 0;
    // Each chunk's CRF; settled: the average rate they make.
    std::vector<int> chunk_crf;
    double kbps = 0;
};

// Log size per CRF step between two encodes of the same pictures, kept to
// what encoders do (size always falls as CRF rises; a flat or rising pair
// is noise, and a single encode takes kDefaultLogRatePerCrf).
double log_size_slope(int crf_a, double size_a, int crf_b, double size_b);

// The search of one rung over a run's passes: each pass encodes the rung's
// chunks at the CRFs asked (or takes them from the journal) and records what
// they made. The rung has one CRF, its base, capped per segment: a segment
// (a chunk; a short last chunk with the one before it, as HLS measures
// BANDWIDTH) whose rate at the base would pass kPeakAim x the rung's target
// takes the lowest CRF that keeps it under (HLS authoring: BANDWIDTH at most
// 2x AVERAGE-BANDWIDTH), and the base is the lowest CRF at which the rung,
// so capped, is not over its band; where no whole CRF lands in the band,
// some segments take the base's next lower CRF (fewest extra bytes first).
// Every chunk's size at a CRF it was not made at is predicted from its own
// sizes (log-linear between them, past them with its own slope, else the
// rung's median slope, else kDefaultLogRatePerCrf); a pass encodes what the
// plan needs and was not made, so the base and the caps are settled
// together and a pass after the first often encodes only some chunks. The
// rung settles once its plan is all made (its rate then known exactly),
// or as soon as a plan it made lands in the band with its peaks within
// kPeakLimit; a plan outside the band may move only some segments up to
// kMostPartialSteps toward it when that encodes fewer seconds than a new
// plan (step_some: issue 43's "a second encode of only the chunks that
// must change"). Every decision comes from chunk sizes alone.
class RungCrfSearch {
public:
    static constexpr int kMaxTrials = 8;
    // A segment's rate may reach this many times the average: 2 (HLS
    // authoring), less a margin for rounding; the container's bytes, the
    // same in every segment, and the audio only bring a playlist's
    // BANDWIDTH nearer its AVERAGE-BANDWIDTH than the chunks' sizes.
    static constexpr double kPeakLimit = 1.95;
    // Where a capped segment is aimed: under the limit by what a rung in
    // its band may be under its target (1.8 / 0.95 < 1.95), no further, as
    // every step costs that segment quality.
    static constexpr double kPeakAim = 1.8;
    // Rungs of at most this many segments may also mix a segment a step
    // up against one a step down (coarse rungs: a short clip); more
    // segments land in the band with one lower step alone.
    static constexpr std::size_t kPairedStepWindows = 64;
    // How far step_some may move a rung's segments from the others: a
    // step moves a segment's size 5-10%, so one step corrects a rung that
    // missed by a few percent only and a bigger miss encoded the whole
    // rung again; 3 steps (about 1 dB of PSNR between segments) take the
    // measured ladders from 21.10 to 19.30 1080p-rung encodes
    // (tests/unit/ladder_crf_search_test.cpp; 2 steps 20.44, 4 steps 19.01).
    static constexpr int kMostPartialSteps = 3;

    RungCrfSearch(double target_kbps, double frame_rate, int first_crf = 40);

    // The rung's CRF (the lowest of its segments not capped), verdict, each
    // chunk's CRF and average rate; while it searches, what it asks next.
    const CrfChoice& choice() const { return choice_; }
    bool settled() const { return settled_; }
    // Its CRF is found: it settled.
    bool crf_found() const { return settled_; }
    // Passes in which the rung encoded (a chunk at a CRF not yet made).
    int trials() const { return encodes_; }
    // How far the last pass moved the rung's CRF: from the one it encoded
    // to the one it asks next (0 once settled there).
    int last_move() const { return last_move_; }
    // What those passes encoded, in whole rungs (seconds encoded over the
    // rung's seconds: a pass that encoded half the chunks adds about 0.5).
    double encoded_rungs() const { return budget_.seconds > 0 ? encoded_seconds_ / budget_.seconds : 0; }
    // Chunks given a higher CRF than the base for their segment's peak.
    int peak_capped() const;
    // The highest segment rate over the average, as settled.
    double peak_ratio() const;
    // The CRF chunk k takes in the next pass (once settled, for good).
    int crf_of(std::size_t chunk) const;
    // Chunks whose CRF is not choice().crf in the next pass.
    std::vector<std::pair<std::size_t, int>> other_chunk_crfs() const;
    // What a pass made at the CRFs asked: each chunk's bytes and frames, in
    // chunk order from chunk 0 (a settled rung's are not a trial: ignored).
    void record(const std::vector<std::int64_t>& chunk_bytes, const std::vector<std::int64_t>& chunk_frames);

    // Another rung of the same source (the ladder's lead) as this one's
    // prior: its chunks' predicted sizes at every CRF (predicted_sizes())
    // and lengths. Before this rung encodes, its sizes are taken as the
    // lead's times size_ratio (its first plan, caps included, comes from
    // them); a chunk it has made at one CRF takes the lead's shape from
    // there (on the measured ladders that costs fewer encodes than one
    // slope for all content: docs/benchmarks.md). Later calls refresh the
    // shape only.
    void follow(const std::vector<std::vector<double>>& lead_sizes, const std::vector<double>& chunk_seconds,
                double size_ratio);
    // Each chunk's predicted size at CRF 0..kMaxCrf (empty before it records).
    std::vector<std::vector<double>> predicted_sizes() const;
    const std::vector<double>& chunk_seconds() const { return chunk_seconds_; }

    // HLS's segments: each chunk, a chunk shorter than half the longest
    // with the one before it.
    struct Window {
        std::size_t first = 0;
        std::size_t last = 0;
        double seconds = 0;
    };

private:
    void set_up_chunks(const std::vector<double>& seconds);
    void predict_sizes();
    void decide();
    bool settle_if_in_band();
    std::vector<int> plan_at(int base, double reference_rate) const;
    std::vector<int> mix_down(std::vector<int> plan, int base, double total, double reference_rate) const;
    std::optional<std::pair<std::vector<int>, int>> step_some(double reference_rate) const;
    std::optional<std::pair<std::vector<int>, int>> step_some_by(int steps, double reference_rate) const;
    double swap_lowered(double total, const std::vector<std::pair<double, std::size_t>>& lowerings,
                        std::vector<bool>& lowered) const;
    double seconds_to_encode(const std::vector<int>& plan) const;
    std::optional<std::pair<std::size_t, std::size_t>> paired_step(
        const std::vector<int>& plan, int base, double total,
        const std::vector<std::pair<double, std::size_t>>& lowerings, const std::vector<bool>& lowered) const;
    double window_bytes(const Window& w, const std::vector<int>& plan) const;
    double window_bytes_at(std::size_t window, int crf) const;  // predicted (predict_sizes())
    // The rung's target and its band, in bytes.
    struct Band {
        double target = 0;
        double bottom = 0;
        double top = 0;
    };
    Band band() const;
    double bytes_of(const std::vector<int>& plan) const;
    double size_at(std::size_t chunk, int crf) const;
    double rung_slope() const;
    bool all_made(const std::vector<int>& plan) const;
    CrfVerdict verdict_of(const std::vector<int>& plan) const;
    void ask();
    void settle(CrfVerdict verdict);
    void give_up();
    bool made(std::size_t chunk, int crf) const;

    CrfBudget budget_;
    double frame_rate_;
    int first_crf_;
    bool settled_ = false;
    int encodes_ = 0;
    double encoded_seconds_ = 0;
    std::vector<std::map<int, std::int64_t>> made_;  // per chunk: CRF -> bytes
    std::vector<std::vector<double>> shape_;          // per chunk, per CRF: the lead's predicted bytes (follow())
    double shape_ratio_ = 1;                          // this rung's bytes over the lead's, before it encodes
    std::vector<double> chunk_seconds_;
    std::vector<Window> windows_;
    double rung_slope_ = kDefaultLogRatePerCrf;   // predict_sizes()
    std::vector<std::vector<double>> window_sizes_;  // per segment, per CRF: predicted bytes (predict_sizes())
    std::vector<int> plan_;  // per chunk, once the chunks are known
    int base_ = 0;
    int last_move_ = kMaxCrf;
    double reference_rate_ = 0;  // bytes per second the caps were measured against
    CrfChoice choice_;
};

// The searches of one ladder, led by its smallest rung: it encodes alone
// first (its encodes cost least), and once its CRF is near (found, or its
// last pass moved it at most kLeadNearMove after kLeadEncodes encodes or
// more; at most kLeadMostEncodes) every rung searches (the largest of
// three or more a pass later, from the next largest's first encode: the
// rungs of a clip miss the lead's prediction the same way, the largest
// most; 16 cores CPU 0.825x), the others planning their
// first encode from the lead's chunk sizes (RungCrfSearch::follow) and
// taking the lead's fall with CRF for a chunk they have made once. On the
// measured ladders (tests/unit/ladder_crf_search_test.cpp) that cost 22.75
// 1080p-rung encodes, where starting the others at the lead's CRF with one
// slope for all cost 26.82 (handing over after 1 lead encode: 25.68 in 24
// passes instead of 31; after 3: 22.15 in 36); with step_some and
// swap_lowered, 21.54 (each rung alone: 31.18).
// Every pass decodes the source again, and which costs more depends on how
// dear decoding is against encoding (docs/benchmarks.md: 2 cores 720p, 1
// encode 0.87x the CPU of settling; 16 cores 1080p, 1.25x).
class LadderCrfSearch {
public:
    static constexpr int kLeadEncodes = 2;
    // Sizes against CRF bend (film grain: 9x from CRF 40 to 22, 13x more
    // to 10): a lead that still moves far hands the others a line drawn
    // between CRFs far from theirs, and their first encodes miss by 3-12x
    // (2-core corpus, docs/benchmarks.md).
    static constexpr int kLeadNearMove = 4;
    static constexpr int kLeadMostEncodes = 4;
    // A rung's bytes over the lead's at the same CRF, before it has
    // encoded: their pixels' ratio to this power (the measured ladders'
    // median, docs/data/cq-budget-16cores/chunks.csv: 0.84; 0.55-1.47 by
    // content, so a rung's first encode can miss by half and its second
    // starts from its own sizes).
    static constexpr double kBytesPerPixelExponent = 0.84;
    struct Rung {
        double target_kbps = 0;
        std::int64_t pixels = 0;  // width x height
    };
    LadderCrfSearch(const std::vector<Rung>& rungs, double frame_rate, int first_crf = 40);

    bool settled() const;
    // Whether rung i encodes in the next pass (else it is settled, or waits
    // for the lead).
    bool searching(std::size_t i) const;
    const RungCrfSearch& rung(std::size_t i) const { return searches_.at(i); }
    std::size_t size() const { return searches_.size(); }
    // What a pass made of a searching rung (RungCrfSearch::record).
    void record(std::size_t i, const std::vector<std::int64_t>& chunk_bytes,
                const std::vector<std::int64_t>& chunk_frames);

private:
    void follow_lead(std::size_t i);
    void start_largest();

    std::vector<RungCrfSearch> searches_;
    std::vector<std::int64_t> pixels_;
    std::size_t lead_ = 0;
    bool handed_off_ = false;
    // With three rungs or more, the largest starts a pass after the others,
    // planning from the next largest's sizes (their ratio is the nearest).
    std::optional<std::size_t> largest_;
    std::size_t next_largest_ = 0;
    bool largest_started_ = false;
};

}  // namespace ladder::engine
