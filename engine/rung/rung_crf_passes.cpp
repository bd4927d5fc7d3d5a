// RungCrfSearch and LadderCrfSearch (rung_crf_search.hpp): a rung's CRF
// and its peaks, decided pass by pass from the sizes of its chunks.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "engine/rung/rung_crf_search.hpp"

namespace ladder::engine {
namespace {

// The search's last word when it ran out of encodes: the lowest CRF whose
// rate is not over the band, else the highest CRF tried (the smallest).
CrfChoice best_trial(const CrfBudget& budget, const std::vector<CrfTrial>& trials) {
    const CrfTrial* best = nullptr;
    const double top = budget.target_kbps * (1 + budget.tolerance);
    for (const auto& t : trials)
        if (trial_kbps(budget, t) <= top && (!best || t.crf < best->crf)) best = &t;
    if (!best)
        for (const auto& t : trials)
            if (!best || t.crf > best->crf) best = &t;
    CrfChoice c;
    c.verdict = CrfVerdict::search_limit;
    c.crf = best->crf;
    c.chunk_crf.assign(best->chunk_bytes.size(), best->crf);
    c.kbps = trial_kbps(budget, *best);
    return c;
}

// The runs of chunks whose rate HLS measures as one (mux::peak_bandwidth:
// runs of 0.5 to 1.5 target durations): each chunk, with a chunk shorter
// than half the longest joined to the one before it (a short last chunk).
struct Window {
    std::size_t first = 0;
    std::size_t last = 0;
};

std::vector<Window> segment_windows(const std::vector<double>& seconds) {
    const double longest = *std::max_element(seconds.begin(), seconds.end());
    std::vector<Window> windows;
    for (std::size_t k = 0; k < seconds.size(); ++k) {
        if (!windows.empty() && seconds[k] < longest / 2)
            windows.back().last = k;
        else
            windows.push_back({k, k});
    }
    return windows;
}

double kbps_of(double bytes, double seconds) { return bytes * 8.0 / 1000.0 / seconds; }

}  // namespace

RungCrfSearch::RungCrfSearch(double target_kbps, double frame_rate, int first_crf)
    : frame_rate_(frame_rate), first_crf_(first_crf) {
    budget_.target_kbps = target_kbps;
    choice_.crf = std::clamp(first_crf, budget_.ceiling_crf, kMaxCrf);
}

bool RungCrfSearch::made(std::size_t chunk, int crf) const { return made_.at(chunk).count(crf) > 0; }

int RungCrfSearch::crf_of(std::size_t chunk) const { return chunk < plan_.size() ? plan_[chunk] : choice_.crf; }

std::vector<std::pair<std::size_t, int>> RungCrfSearch::other_chunk_crfs() const {
    std::vector<std::pair<std::size_t, int>> out;
    for (std::size_t k = 0; k < plan_.size(); ++k)
        if (plan_[k] != choice_.crf) out.emplace_back(k, plan_[k]);
    return out;
}

double RungCrfSearch::plan_kbps() const {
    double bytes = 0;
    for (std::size_t k = 0; k < plan_.size(); ++k) bytes += static_cast<double>(made_[k].at(plan_[k]));
    return kbps_of(bytes, budget_.seconds);
}

double RungCrfSearch::peak_ratio() const {
    if (plan_.empty() || made_.empty()) return 0;
    double peak = 0;
    for (const Window& w : segment_windows(chunk_seconds_)) {
        double bytes = 0, seconds = 0;
        for (std::size_t k = w.first; k <= w.last; ++k) {
            const auto it = made_[k].find(plan_[k]);
            if (it == made_[k].end()) return 0;
            bytes += static_cast<double>(it->second);
            seconds += chunk_seconds_[k];
        }
        peak = std::max(peak, kbps_of(bytes, seconds));
    }
    const double average = plan_kbps();
    return average > 0 ? peak / average : 0;
}

void RungCrfSearch::record(const std::vector<std::int64_t>& chunk_bytes, const std::vector<std::int64_t>& chunk_frames) {
    if (settled()) return;
    if (chunk_bytes.empty() || chunk_frames.size() != chunk_bytes.size() || !(frame_rate_ > 0))
        throw std::invalid_argument("RungCrfSearch::record: a pass with no chunks");
    if (!made_.empty() && made_.size() != chunk_bytes.size())
        throw std::invalid_argument("RungCrfSearch::record: a pass with other chunks than the first");
    if (made_.empty()) {
        made_.resize(chunk_bytes.size());
        plan_.assign(chunk_bytes.size(), choice_.crf);
        for (auto frames : chunk_frames) {
            if (frames <= 0) throw std::invalid_argument("RungCrfSearch::record: a chunk with no frames");
            chunk_seconds_.push_back(static_cast<double>(frames) / frame_rate_);
        }
        budget_.seconds = std::accumulate(chunk_seconds_.begin(), chunk_seconds_.end(), 0.0);
    }
    bool encoded = false;
    for (std::size_t k = 0; k < chunk_bytes.size(); ++k) {
        encoded = encoded || !made(k, plan_[k]);
        made_[k][plan_[k]] = chunk_bytes[k];
    }
    if (encoded) ++encodes_;
    if (stage_ == Stage::rung_crf) {
        search_crf();
    } else {
        ++peak_passes_;
        cap_peaks();
    }
}

void RungCrfSearch::search_crf() {
    CrfTrial trial{choice_.crf, {}, std::nullopt};
    for (const auto& sizes : made_) trial.chunk_bytes.push_back(sizes.at(choice_.crf));
    trials_.push_back(std::move(trial));
    choice_ = choose_crf(budget_, trials_, first_crf_);
    if (choice_.verdict == CrfVerdict::encode_next && static_cast<int>(trials_.size()) >= kMaxTrials)
        choice_ = best_trial(budget_, trials_);
    if (choice_.verdict == CrfVerdict::encode_next) {
        plan_.assign(made_.size(), choice_.crf);
        return;
    }
    verdict_ = choice_.verdict;
    found_crf_ = choice_.crf;
    plan_ = choice_.chunk_crf;
    stage_ = Stage::peaks;
    cap_peaks();
}

// Each round either raises a chunk over the limit, or re-settles the
// chunks not capped on what the capped ones left, or settles; a round that
// needs a chunk at a CRF not made yet ends the pass's decision.
void RungCrfSearch::cap_peaks() {
    if (verdict_ == CrfVerdict::over_at_max_crf) return settle();
    const auto needs_encode = [&] {
        for (std::size_t k = 0; k < plan_.size(); ++k)
            if (!made(k, plan_[k])) return true;
        return false;
    };
    // Settling under the band (the other chunks could not take back what
    // capping freed): from here on the limit is the real average's.
    const auto limit_to_average = [&] {
        if (strict_peaks_ || plan_kbps() >= budget_.target_kbps * (1 - budget_.tolerance)) return false;
        strict_peaks_ = true;
        return true;
    };
    for (int round = 0; round < 4 * kMaxCrf; ++round) {
        if (raise_peaks()) {
            if (!needs_encode()) continue;
            if (peak_passes_ >= kMaxPeakPasses) return give_up();
            return ask_pass();
        }
        if (capped_.empty()) {
            if (limit_to_average()) continue;
            return settle();
        }
        const CrfChoice rest = settle_rest();
        bool changed = false;
        std::size_t j = 0;
        for (std::size_t k = 0; k < plan_.size(); ++k) {
            if (capped_.count(k)) continue;
            const int crf = rest.verdict == CrfVerdict::encode_next ? rest.crf : rest.chunk_crf.at(j++);
            changed = changed || plan_[k] != crf;
            plan_[k] = crf;
        }
        if (rest.verdict == CrfVerdict::encode_next) {
            // (A CRF asked again would make the same pass forever.)
            if (peak_passes_ >= kMaxPeakPasses || !needs_encode()) return give_up();
            return ask_pass();
        }
        verdict_ = rest.verdict;
        if (changed) continue;
        if (limit_to_average()) continue;
        return settle();
    }
    settle();
}

// The windows over kPeakLimit x the average the rung ends at (at least
// the band's bottom while the other chunks can still take what capping
// frees): each one's largest chunk gets the CRF that brings the window to
// kPeakAim x that average. True when a CRF went up.
bool RungCrfSearch::raise_peaks() {
    const double average = plan_kbps();
    const bool refills = verdict_ == CrfVerdict::on_target || verdict_ == CrfVerdict::mixed;
    const double expected =
        refills && !strict_peaks_ ? std::max(average, budget_.target_kbps * (1 - budget_.tolerance)) : average;
    bool raised = false;
    for (const Window& w : segment_windows(chunk_seconds_)) {
        double bytes = 0, seconds = 0;
        std::optional<std::size_t> largest;
        for (std::size_t k = w.first; k <= w.last; ++k) {
            const auto size = static_cast<double>(made_[k].at(plan_[k]));
            bytes += size;
            seconds += chunk_seconds_[k];
            if (plan_[k] < kMaxCrf && (!largest || size > static_cast<double>(made_[k].at(plan_[*largest]))))
                largest = k;
        }
        if (kbps_of(bytes, seconds) <= kPeakLimit * expected || !largest) continue;
        const double others = bytes - static_cast<double>(made_[*largest].at(plan_[*largest]));
        const double aim = std::max(1.0, kPeakAim * expected * 1000.0 / 8.0 * seconds - others);
        const int crf = peak_crf(*largest, aim);
        if (crf <= plan_[*largest]) continue;
        plan_[*largest] = crf;
        capped_.insert(*largest);
        raised = true;
    }
    return raised;
}

// The CRF that brings a chunk to aim_bytes: the lowest already made above
// its CRF that does without falling far under it (a made CRF far higher
// would throw the chunk's quality away to save a pass), else the one its
// sizes predict (a secant in log size between the made CRFs around the
// aim; past the highest made, with the slope of its two highest).
int RungCrfSearch::peak_crf(std::size_t chunk, double aim_bytes) const {
    const auto& sizes = made_[chunk];
    for (const auto& [crf, bytes] : sizes)
        if (crf > plan_[chunk] && static_cast<double>(bytes) <= aim_bytes)
            return static_cast<double>(bytes) >= kFarUnderAim * aim_bytes ? crf : predicted_crf(chunk, aim_bytes);
    if (std::prev(sizes.end())->first >= kMaxCrf) return plan_[chunk];
    return predicted_crf(chunk, aim_bytes);
}

int RungCrfSearch::predicted_crf(std::size_t chunk, double aim_bytes) const {
    const auto& sizes = made_[chunk];
    // The closest made over the aim (the highest such CRF), and the one
    // under it if any: a bracket, else the two highest.
    auto over = sizes.end();
    auto under = sizes.end();
    for (auto it = sizes.begin(); it != sizes.end(); ++it) {
        if (static_cast<double>(it->second) > aim_bytes) over = it;
        else if (under == sizes.end()) under = it;
    }
    if (over == sizes.end()) return std::max(plan_[chunk], sizes.begin()->first);  // every size fits
    double slope = kDefaultLogRatePerCrf;
    int highest = kMaxCrf;
    if (under != sizes.end()) {
        slope = log_size_slope(over->first, static_cast<double>(over->second), under->first,
                               static_cast<double>(under->second));
        highest = under->first;
    } else if (over != sizes.begin()) {
        const auto below = std::prev(over);
        slope = log_size_slope(over->first, static_cast<double>(over->second), below->first,
                               static_cast<double>(below->second));
    }
    const double steps = std::log(aim_bytes / static_cast<double>(over->second)) / slope;
    return std::clamp(over->first + static_cast<int>(std::ceil(steps)), over->first + 1, highest);
}

// The chunks not capped, searched again (choose_crf over the CRFs all of
// them were made at) for the target less what the capped ones make, in the
// same band of the whole rung's target.
CrfChoice RungCrfSearch::settle_rest() const {
    const auto keep = [&] {
        CrfChoice c;
        c.verdict = verdict_;
        for (std::size_t k = 0; k < plan_.size(); ++k)
            if (!capped_.count(k)) c.chunk_crf.push_back(plan_[k]);
        return c;
    };
    const double target_bytes = budget_.target_kbps * 1000.0 / 8.0 * budget_.seconds;
    double capped_bytes = 0;
    for (std::size_t k : capped_) capped_bytes += static_cast<double>(made_[k].at(plan_[k]));
    const double rest_bytes = target_bytes - capped_bytes;
    // The CRFs every chunk not capped was made at (those of the first such
    // chunk that all the others have: a capped chunk's differ).
    std::size_t first = 0;
    while (first < made_.size() && capped_.count(first)) ++first;
    if (first == made_.size() || rest_bytes <= 0) return keep();
    std::vector<CrfTrial> trials;
    for (const auto& [crf, unused] : made_[first]) {
        CrfTrial t{crf, {}, std::nullopt};
        for (std::size_t k = 0; k < made_.size(); ++k) {
            if (capped_.count(k)) continue;
            const auto it = made_[k].find(crf);
            if (it == made_[k].end()) break;
            t.chunk_bytes.push_back(it->second);
        }
        if (t.chunk_bytes.size() == made_.size() - capped_.size()) trials.push_back(std::move(t));
    }
    if (trials.empty()) return keep();
    CrfBudget rest = budget_;
    rest.target_kbps = kbps_of(rest_bytes, budget_.seconds);
    rest.tolerance = budget_.tolerance * target_bytes / rest_bytes;
    CrfChoice choice = choose_crf(rest, trials, choice_.crf);
    if (choice.verdict == CrfVerdict::encode_next && peak_passes_ >= kMaxPeakPasses)
        choice = best_trial(rest, trials);
    return choice;
}

// Out of passes: every chunk whose CRF was not made yet takes the nearest
// made above it (smaller, so never over the band), else its highest made.
void RungCrfSearch::give_up() {
    for (std::size_t k = 0; k < plan_.size(); ++k) {
        if (made(k, plan_[k])) continue;
        const auto above = made_[k].lower_bound(plan_[k]);
        plan_[k] = above != made_[k].end() ? above->first : std::prev(made_[k].end())->first;
    }
    verdict_ = verdict_ == CrfVerdict::encode_next ? CrfVerdict::search_limit : verdict_;
    settle();
}

// The rung's CRF is its chunks' not capped (mixed: the lower), in a pass
// as once settled.
void RungCrfSearch::ask_pass() {
    std::optional<int> lowest;
    for (std::size_t k = 0; k < plan_.size(); ++k)
        if (!capped_.count(k) && (!lowest || plan_[k] < *lowest)) lowest = plan_[k];
    if (lowest) choice_.crf = *lowest;
    choice_.chunk_crf = plan_;
}

void RungCrfSearch::settle() {
    stage_ = Stage::settled;
    choice_.kbps = plan_kbps();
    const bool refills = verdict_ == CrfVerdict::on_target || verdict_ == CrfVerdict::mixed;
    if (refills && !capped_.empty() && choice_.kbps < budget_.target_kbps * (1 - budget_.tolerance))
        verdict_ = CrfVerdict::under_for_peaks;
    choice_.verdict = verdict_;
    ask_pass();
}

void RungCrfSearch::start_at(int crf) {
    if (!made_.empty()) return;
    first_crf_ = std::clamp(crf, budget_.ceiling_crf, kMaxCrf);
    choice_.crf = first_crf_;
}

LadderCrfSearch::LadderCrfSearch(const std::vector<Rung>& rungs, double frame_rate, int first_crf) {
    if (rungs.empty()) throw std::invalid_argument("LadderCrfSearch: no rungs");
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        searches_.emplace_back(rungs[i].target_kbps, frame_rate, first_crf);
        if (rungs[i].pixels < rungs[lead_].pixels) lead_ = i;
    }
}

bool LadderCrfSearch::settled() const {
    return std::all_of(searches_.begin(), searches_.end(), [](const RungCrfSearch& s) { return s.settled(); });
}

bool LadderCrfSearch::searching(std::size_t i) const {
    return !searches_.at(i).settled() && (i == lead_ || handed_off_);
}

void LadderCrfSearch::record(std::size_t i, const std::vector<std::int64_t>& chunk_bytes,
                             const std::vector<std::int64_t>& chunk_frames) {
    if (!searching(i)) return;
    searches_[i].record(chunk_bytes, chunk_frames);
    // Once, after the lead's kLeadEncodes encodes or once its CRF is found:
    // a later record of the lead must not move the CRF of a rung that
    // encoded in that pass but has not recorded.
    const RungCrfSearch& lead = searches_[lead_];
    if (i != lead_ || handed_off_ || (lead.trials() < kLeadEncodes && !lead.crf_found())) return;
    handed_off_ = true;
    // The CRF the lead found, or the one its encodes predict (its next).
    for (auto& s : searches_) s.start_at(lead.crf_found() ? lead.found_crf() : lead.choice().crf);
}

}  // namespace ladder::engine
