#pragma once
// The constant-quality level of one rung, found from the rung's own encodes
// at the preset it is delivered at (issue 43's closed loop; measured in
// docs/benchmarks.md, "Constant quality per rung"). A rung is encoded at a
// CRF; what it made decides whether that CRF stands or which one to try
// next. Pure: no clock, no threads, no encoder, so the same encodes give
// the same decision on any machine, in any order of arrival, in a shard or
// a resumed run (the decisions can be recorded and replayed).
//
// The rule for a rung's rate (README "What a rung's bit rate means"): the
// target is both the average to aim for and a ceiling. A rung settles
//  - on target: its average within ±tolerance of the target;
//  - at the quality ceiling: under the band at ladder's best quality for it
//    (the ceiling CRF, or a PSNR at or above the ceiling PSNR, where more
//    bits buy nothing visible); never padded;
//  - over at the largest CRF: the encoder's smallest output is still over
//    the band (the caller must report it: the rung cannot meet its target);
//  - mixed: no whole CRF lands in the band (a CRF step moves the rate 5-10%
//    on most content, more on some), so some chunks keep CRF c and the rest
//    take c+1, chosen from both encodes' sizes to come as close to the
//    target as the chunks allow without passing it.
// Otherwise the answer is the next CRF to encode: a secant on the logarithm
// of the rate (rate falls about exponentially with CRF), between the
// closest encodes over and under the target once both exist.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ladder::engine {

// SVT-AV1's CRF range as libavcodec takes it.
inline constexpr int kMaxCrf = 63;
// Ladder's best quality for a rung: this CRF, or this PSNR of the rung
// against its scaled source, whichever comes first (docs/benchmarks.md,
// "Where is the quality ceiling?": 50 dB alone never stops a grainy 360p
// that spends its target near CRF 14 at 48 dB; CRF 10 alone would spend
// 3027 kb/s on talking-head's 1080p, at 50 dB from CRF 31 and 861 kb/s).
inline constexpr int kCeilingCrf = 10;
inline constexpr double kCeilingPsnrDb = 50.0;
// When only one encode exists: the rate falls by half every 10 CRF steps
// (the corpus's median, docs/data/cq-budget-16cores/fixed-slope.md).
inline constexpr double kDefaultLogRatePerCrf = -0.0693;

// One encode of the rung's chunks at one CRF.
struct CrfTrial {
    int crf = 0;
    std::vector<std::int64_t> chunk_bytes;  // each chunk's size, in the rung's order
    std::optional<double> psnr_db;          // the rung's, when measured
};

struct CrfBudget {
    double target_kbps = 0;
    double seconds = 0;  // the rung's length
    double tolerance = 0.05;
    int ceiling_crf = kCeilingCrf;
    double ceiling_psnr_db = kCeilingPsnrDb;
};

// search_limit: the search ended at its limit of encodes (RungCrfSearch):
// the best trial not over the band, else the smallest.
enum class CrfVerdict { on_target, at_ceiling, over_at_max_crf, mixed, encode_next, search_limit };

// "on_target", "at_quality_ceiling", ...: report.json's words.
const char* crf_verdict_name(CrfVerdict verdict);

struct CrfChoice {
    CrfVerdict verdict = CrfVerdict::encode_next;
    // encode_next: the CRF to encode next; otherwise the rung's CRF (mixed:
    // the lower of the two).
    int crf = 0;
    // Settled: each chunk's CRF and the average rate they make.
    std::vector<int> chunk_crf;
    double kbps = 0;
};

// The average rate of a trial over the budget's seconds.
double trial_kbps(const CrfBudget& budget, const CrfTrial& trial);

// What the trials so far say. Trials must cover the same chunks; an empty
// list asks for `first` (the caller's first guess, clamped to the range).
CrfChoice choose_crf(const CrfBudget& budget, std::span<const CrfTrial> trials, int first = 40);

// The search of one rung over a run's passes: each pass encodes the rung's
// chunks at the CRF asked (or takes them from the journal) and records what
// they made; the choice says what the next pass asks or that the rung is
// settled. After max_trials encodes the rung settles on its best trial.
class RungCrfSearch {
public:
    static constexpr int kMaxTrials = 8;
    RungCrfSearch(double target_kbps, double frame_rate, int first_crf = 40);

    const CrfChoice& choice() const { return choice_; }
    bool settled() const { return choice_.verdict != CrfVerdict::encode_next; }
    int trials() const { return static_cast<int>(trials_.size()); }
    // What a pass made at choice().crf: each chunk's bytes and frames, in
    // chunk order from chunk 0 (a settled rung's are not a trial: ignored).
    void record(const std::vector<std::int64_t>& chunk_bytes, std::int64_t frames);

    // A rung that has not encoded yet starts at this CRF instead.
    void start_at(int crf);

private:
    CrfBudget budget_;
    double frame_rate_;
    int first_crf_;
    std::vector<CrfTrial> trials_;
    CrfChoice choice_;
};

// The searches of one ladder, led by its smallest rung: it searches alone
// first (its encodes cost least), then every other rung starts at the CRF
// the lead settled at. The rungs of one source need CRFs within a few steps
// of each other (docs/benchmarks.md, "--rate-control budget": at most 7
// apart on six kinds of content), where CRF 40 was up to 21 away. (Giving
// the others the lead's measured slope too changed nothing on the measured
// ladders: tests/unit/rung_crf_search_test.cpp.)
class LadderCrfSearch {
public:
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
    void record(std::size_t i, const std::vector<std::int64_t>& chunk_bytes, std::int64_t frames);

private:
    std::vector<RungCrfSearch> searches_;
    std::size_t lead_ = 0;
};

}  // namespace ladder::engine
