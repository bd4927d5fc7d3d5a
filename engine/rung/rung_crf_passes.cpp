// RungCrfSearch and LadderCrfSearch (rung_crf_search.hpp): a rung's base
// CRF and its segments' caps, decided pass by pass from its chunks' sizes.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "engine/rung/rung_crf_search.hpp"

namespace ladder::engine {
namespace {

std::vector<RungCrfSearch::Window> segment_windows(const std::vector<double>& seconds) {
    const double longest = *std::max_element(seconds.begin(), seconds.end());
    std::vector<RungCrfSearch::Window> windows;
    for (std::size_t k = 0; k < seconds.size(); ++k) {
        if (!windows.empty() && seconds[k] < longest / 2) {
            windows.back().last = k;
            windows.back().seconds += seconds[k];
        } else {
            windows.push_back({k, k, seconds[k]});
        }
    }
    return windows;
}

double kbps_of(double bytes, double seconds) { return bytes * 8.0 / 1000.0 / seconds; }

// Bytes per second of a rate in kb/s.
double bytes_per_second(double kbps) { return kbps * 1000.0 / 8.0; }

}  // namespace

RungCrfSearch::RungCrfSearch(double target_kbps, double frame_rate, int first_crf)
    : frame_rate_(frame_rate), first_crf_(std::clamp(first_crf, kCeilingCrf, kMaxCrf)) {
    budget_.target_kbps = target_kbps;
    choice_.crf = first_crf_;
    base_ = first_crf_;
}

bool RungCrfSearch::made(std::size_t chunk, int crf) const { return made_.at(chunk).count(crf) > 0; }

int RungCrfSearch::crf_of(std::size_t chunk) const { return chunk < plan_.size() ? plan_[chunk] : choice_.crf; }

std::vector<std::pair<std::size_t, int>> RungCrfSearch::other_chunk_crfs() const {
    std::vector<std::pair<std::size_t, int>> out;
    for (std::size_t k = 0; k < plan_.size(); ++k)
        if (plan_[k] != choice_.crf) out.emplace_back(k, plan_[k]);
    return out;
}

// Segments above the base because the base would put them over their cap
// (a segment a step up in a paired mix is not one).
int RungCrfSearch::peak_capped() const {
    if (plan_.empty() || windows_.empty() || window_sizes_.empty()) return 0;
    const std::vector<int> capped_at_base = plan_at(base_, reference_rate_);
    int capped = 0;
    for (std::size_t k = 0; k < plan_.size(); ++k) capped += capped_at_base[k] > base_ && plan_[k] > base_;
    return capped;
}

RungCrfSearch::Band RungCrfSearch::band() const {
    const double target = bytes_per_second(budget_.target_kbps) * budget_.seconds;
    return {target, target * (1 - budget_.tolerance), target * (1 + budget_.tolerance)};
}

double RungCrfSearch::peak_ratio() const {
    if (plan_.empty() || !all_made(plan_)) return 0;
    double peak = 0;
    for (const Window& w : windows_) peak = std::max(peak, kbps_of(window_bytes(w, plan_), w.seconds));
    const double average = kbps_of(bytes_of(plan_), budget_.seconds);
    return average > 0 ? peak / average : 0;
}

void RungCrfSearch::record(const std::vector<std::int64_t>& chunk_bytes, const std::vector<std::int64_t>& chunk_frames) {
    if (settled()) return;
    if (chunk_bytes.empty() || chunk_frames.size() != chunk_bytes.size() || !(frame_rate_ > 0))
        throw std::invalid_argument("RungCrfSearch::record: a pass with no chunks");
    if (!chunk_seconds_.empty() && chunk_seconds_.size() != chunk_bytes.size())
        throw std::invalid_argument("RungCrfSearch::record: a pass with other chunks than the first");
    if (chunk_seconds_.empty()) {
        std::vector<double> seconds;
        for (auto frames : chunk_frames) {
            if (frames <= 0) throw std::invalid_argument("RungCrfSearch::record: a chunk with no frames");
            seconds.push_back(static_cast<double>(frames) / frame_rate_);
        }
        set_up_chunks(seconds);
    }
    bool encoded = false;
    for (std::size_t k = 0; k < chunk_bytes.size(); ++k) {
        if (!made(k, plan_[k])) {
            encoded = true;
            encoded_seconds_ += chunk_seconds_[k];
        }
        made_[k][plan_[k]] = std::max<std::int64_t>(chunk_bytes[k], 1);
    }
    if (encoded) ++encodes_;
    const int encoded_crf = choice_.crf;
    predict_sizes();
    if (!settle_if_in_band()) decide();
    last_move_ = std::abs(choice_.crf - encoded_crf);
}

void RungCrfSearch::set_up_chunks(const std::vector<double>& seconds) {
    chunk_seconds_ = seconds;
    made_.assign(seconds.size(), {});
    plan_.assign(seconds.size(), choice_.crf);
    budget_.seconds = std::accumulate(chunk_seconds_.begin(), chunk_seconds_.end(), 0.0);
    windows_ = segment_windows(chunk_seconds_);
}

void RungCrfSearch::follow(const std::vector<std::vector<double>>& lead_sizes, const std::vector<double>& chunk_seconds,
                           double size_ratio) {
    if (settled_ || lead_sizes.empty() || lead_sizes.size() != chunk_seconds.size()) return;
    if (!chunk_seconds_.empty() && chunk_seconds_.size() != lead_sizes.size()) return;
    shape_ = lead_sizes;
    if (!chunk_seconds_.empty()) return;
    shape_ratio_ = size_ratio;
    set_up_chunks(chunk_seconds);
    predict_sizes();
    decide();
}

std::vector<std::vector<double>> RungCrfSearch::predicted_sizes() const {
    std::vector<std::vector<double>> sizes(made_.size(), std::vector<double>(kMaxCrf + 1, 0.0));
    for (std::size_t k = 0; k < made_.size(); ++k) {
        if (made_[k].empty() && shape_.empty()) return {};
        for (int crf = 0; crf <= kMaxCrf; ++crf) sizes[k][static_cast<std::size_t>(crf)] = size_at(k, crf);
    }
    return sizes;
}

// The plan just encoded, in the band with no segment over the peak limit
// of what it made: settled. The search stops at the first plan that lands
// rather than seek the lowest CRF the band allows (a pass more is an
// encode more, for a step of quality at most).
bool RungCrfSearch::settle_if_in_band() {
    if (plan_.empty() || !all_made(plan_)) return false;
    const auto [target_bytes, bottom, top] = band();
    const double total = bytes_of(plan_);
    if (total < bottom || total > top) return false;
    const double average = total / budget_.seconds;
    for (const Window& w : windows_)
        if (window_bytes(w, plan_) > kPeakLimit * average * w.seconds) return false;
    settle(verdict_of(plan_));
    return true;
}

// What decide() reads again and again, once per pass: the rung's median
// slope, and each segment's predicted size at every CRF (a long source has
// thousands of segments: computed per question, a decision took minutes).
void RungCrfSearch::predict_sizes() {
    rung_slope_ = rung_slope();
    window_sizes_.assign(windows_.size(), std::vector<double>(kMaxCrf + 1, 0.0));
    for (std::size_t i = 0; i < windows_.size(); ++i)
        for (int crf = 0; crf <= kMaxCrf; ++crf)
            for (std::size_t k = windows_[i].first; k <= windows_[i].last; ++k)
                window_sizes_[i][static_cast<std::size_t>(crf)] += size_at(k, crf);
}

// The plan the sizes predict: the lowest base at which the capped rung is
// not over its band, mixed down a step where that leaves it under; the
// peaks measured against the target, or against what the rung makes when
// that is less (under the band: at the quality ceiling, or capped).
void RungCrfSearch::decide() {
    const auto [target_bytes, bottom, top] = band();
    double reference = bytes_per_second(budget_.target_kbps);
    std::vector<int> plan;
    int base = kMaxCrf;
    for (int round = 0; round < 8; ++round) {
        base = kMaxCrf;
        for (int crf = budget_.ceiling_crf; crf <= kMaxCrf; ++crf)
            if (bytes_of(plan_at(crf, reference)) <= top) {
                base = crf;
                break;
            }
        plan = plan_at(base, reference);
        double total = bytes_of(plan);
        // A step higher nearer the target and still in the band: aim at
        // the band's middle, where a prediction's error lands inside it
        // most often.
        if (total > target_bytes && base < kMaxCrf) {
            std::vector<int> higher = plan_at(base + 1, reference);
            const double higher_total = bytes_of(higher);
            if (higher_total >= bottom && target_bytes - higher_total < total - target_bytes) {
                ++base;
                plan = std::move(higher);
                total = higher_total;
            }
        }
        if (total < bottom && base > budget_.ceiling_crf) {
            plan = mix_down(std::move(plan), base, total, reference);
            total = bytes_of(plan);
        }
        const double average = total / budget_.seconds;
        if (total >= bottom || average >= reference * 0.99) break;
        reference = average;
    }
    // The plan just made, with some segments a step toward the band,
    // when that lands in it with fewer seconds to encode than the plan.
    if (!plan.empty() && all_made(plan_) && !all_made(plan))
        if (auto stepped = step_some(reference);
            stepped && seconds_to_encode(stepped->first) < seconds_to_encode(plan)) {
            plan = std::move(stepped->first);
            base = stepped->second;
        }
    plan_ = std::move(plan);
    // Every segment capped above the base: the lowest of their CRFs is.
    base_ = std::max(base, *std::min_element(plan_.begin(), plan_.end()));
    reference_rate_ = reference;
    if (all_made(plan_)) return settle(verdict_of(plan_));
    if (encodes_ >= kMaxTrials) return give_up();
    ask();
}

// The plan just made (every chunk made, over or under the band), with some
// segments of its uncapped ones moved toward the band: the plan of 1 to
// kMostPartialSteps steps that lands in it with the fewest seconds to
// encode (the fewer steps on a tie). With its base; none when none lands.
std::optional<std::pair<std::vector<int>, int>> RungCrfSearch::step_some(double reference_rate) const {
    const auto [target_bytes, bottom, top] = band();
    const double total = bytes_of(plan_);
    if (total >= bottom && total <= top) return std::nullopt;
    std::optional<std::pair<std::vector<int>, int>> best;
    for (int steps = 1; steps <= kMostPartialSteps; ++steps) {
        auto stepped = step_some_by(steps, reference_rate);
        if (!stepped) continue;
        if (!best || seconds_to_encode(stepped->first) < seconds_to_encode(best->first)) best = std::move(stepped);
    }
    return best;
}

// step_some's plan for one distance: segments of the uncapped ones moved
// `steps` toward the band, most bytes moved per second encoded first,
// until the rung is predicted in the band; they move from the lowest CRF
// of the segments not capped when the rung is over (from the highest when
// under), and a move down never passes a segment's cap.
std::optional<std::pair<std::vector<int>, int>> RungCrfSearch::step_some_by(int steps, double reference_rate) const {
    const auto [target_bytes, bottom, top] = band();
    double total = bytes_of(plan_);
    const bool up = total > top;
    int lo = kMaxCrf, hi = 0;
    for (std::size_t i = 0; i < windows_.size(); ++i) {
        const int crf = plan_[windows_[i].first];
        if (crf > base_) continue;  // capped for its peak
        lo = std::min(lo, crf);
        hi = std::max(hi, crf);
    }
    const int from = up ? lo : hi;
    const int to = up ? lo + steps : hi - steps;
    if (lo > hi || to < budget_.ceiling_crf || to > kMaxCrf) return std::nullopt;
    std::vector<std::pair<double, std::size_t>> moves;  // bytes moved per second, window
    for (std::size_t i = 0; i < windows_.size(); ++i) {
        const Window& w = windows_[i];
        if (plan_[w.first] != from) continue;
        if (!up && window_bytes_at(i, to) > kPeakAim * reference_rate * w.seconds) continue;
        moves.emplace_back(std::abs(window_bytes_at(i, to) - window_bytes_at(i, from)) / w.seconds, i);
    }
    std::stable_sort(moves.begin(), moves.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<int> plan = plan_;
    for (const auto& [per_second, i] : moves) {
        const double after = total + window_bytes_at(i, to) - window_bytes_at(i, from);
        if (up ? after < bottom : after > top) continue;  // past the band's far side
        total = after;
        for (std::size_t k = windows_[i].first; k <= windows_[i].last; ++k) plan[k] = to;
        if (total >= bottom && total <= top) break;
    }
    if (total < bottom || total > top) return std::nullopt;
    for (std::size_t i = 0; i < windows_.size(); ++i)
        if (window_bytes(windows_[i], plan) > kPeakAim * reference_rate * windows_[i].seconds) return std::nullopt;
    return std::make_pair(plan, up ? to : from);
}

// Seconds of chunks a plan would encode (those not made at its CRF).
double RungCrfSearch::seconds_to_encode(const std::vector<int>& plan) const {
    double seconds = 0;
    for (std::size_t k = 0; k < plan.size(); ++k)
        if (!made(k, plan[k])) seconds += chunk_seconds_[k];
    return seconds;
}

// Each segment at the base, or at the lowest CRF that keeps it at
// kPeakAim x the reference rate (bytes per second) when that is higher.
std::vector<int> RungCrfSearch::plan_at(int base, double reference_rate) const {
    std::vector<int> plan(made_.size(), base);
    for (std::size_t i = 0; i < windows_.size(); ++i) {
        const Window& w = windows_[i];
        const double aim = kPeakAim * reference_rate * w.seconds;
        int crf = base;
        while (crf < kMaxCrf && window_bytes_at(i, crf) > aim) ++crf;
        for (std::size_t k = w.first; k <= w.last; ++k) plan[k] = crf;
    }
    return plan;
}

// Segments at the base (not capped, nor capped a step lower) one step
// lower, fewest extra bytes first (ties: the earlier), while the rung stays at or under its target;
// then, if it is still under the band, the one more that brings it nearest
// the target inside the band.
std::vector<int> RungCrfSearch::mix_down(std::vector<int> plan, int base, double total, double reference_rate) const {
    const auto [target_bytes, bottom, top] = band();
    std::vector<std::pair<double, std::size_t>> lowerings;  // extra bytes, window
    for (std::size_t i = 0; i < windows_.size(); ++i) {
        const Window& w = windows_[i];
        if (plan[w.first] != base || window_bytes_at(i, base - 1) > kPeakAim * reference_rate * w.seconds) continue;
        lowerings.emplace_back(window_bytes_at(i, base - 1) - window_bytes_at(i, base), i);
    }
    std::stable_sort(lowerings.begin(), lowerings.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<bool> lowered(windows_.size(), false);
    for (const auto& [extra, i] : lowerings) {
        if (total + extra > target_bytes) continue;
        total += extra;
        lowered[i] = true;
    }
    if (total < bottom) {
        std::optional<std::pair<double, std::size_t>> closing;
        for (const auto& [extra, i] : lowerings)
            if (!lowered[i] && total + extra <= top &&
                (!closing || std::abs(total + extra - target_bytes) < std::abs(total + closing->first - target_bytes)))
                closing = std::make_pair(extra, i);
        if (closing && std::abs(total + closing->first - target_bytes) < target_bytes - total) {
            total += closing->first;
            lowered[closing->second] = true;
        }
    }
    if (total < bottom) total = swap_lowered(total, lowerings, lowered);
    std::optional<std::size_t> raised;
    if (total < bottom)
        if (const auto pair = paired_step(plan, base, total, lowerings, lowered)) {
            lowered[pair->first] = true;
            raised = pair->second;
        }
    for (std::size_t i = 0; i < windows_.size(); ++i)
        for (std::size_t k = windows_[i].first; k <= windows_[i].last; ++k)
            plan[k] = lowered[i] ? base - 1 : raised == i ? base + 1 : plan[k];
    return plan;
}

// Still under the band after the fewest-bytes-first fill (three chunks of
// which one is most of the rung: the small ones fill up to the target and
// the big one does not fit): one segment a step down traded for another,
// the trade that lands nearest the target inside the band (rungs of at
// most kPairedStepWindows segments). Returns the new total.
double RungCrfSearch::swap_lowered(double total, const std::vector<std::pair<double, std::size_t>>& lowerings,
                                   std::vector<bool>& lowered) const {
    if (windows_.size() > kPairedStepWindows) return total;
    const auto [target_bytes, bottom, top] = band();
    std::optional<std::pair<std::size_t, std::size_t>> best;  // out, in
    double best_total = total;
    for (const auto& [extra_out, out] : lowerings) {
        if (!lowered[out]) continue;
        for (const auto& [extra_in, in] : lowerings) {
            if (lowered[in]) continue;
            const double after = total - extra_out + extra_in;
            if (after < bottom || after > top) continue;
            if (!best || std::abs(after - target_bytes) < std::abs(best_total - target_bytes)) {
                best = std::make_pair(out, in);
                best_total = after;
            }
        }
    }
    if (!best) return total;
    lowered[best->first] = false;
    lowered[best->second] = true;
    return best_total;
}

// A rung of few segments, where one segment a step moves the rung more
// than the band is wide (three 2-s chunks of grain: 5-8% a step): one more
// segment a step down and another a step up, the pair that lands nearest
// the target inside the band; none when no pair does.
std::optional<std::pair<std::size_t, std::size_t>> RungCrfSearch::paired_step(
    const std::vector<int>& plan, int base, double total, const std::vector<std::pair<double, std::size_t>>& lowerings,
    const std::vector<bool>& lowered) const {
    if (windows_.size() > kPairedStepWindows || base >= kMaxCrf) return std::nullopt;
    const auto [target_bytes, bottom, top] = band();
    std::optional<std::pair<std::size_t, std::size_t>> best;
    double best_distance = 0;
    for (const auto& [extra, down] : lowerings) {
        if (lowered[down]) continue;
        for (std::size_t up = 0; up < windows_.size(); ++up) {
            if (up == down || lowered[up] || plan[windows_[up].first] != base) continue;
            const double after = total + extra - (window_bytes_at(up, base) - window_bytes_at(up, base + 1));
            if (after < bottom || after > top) continue;
            if (!best || std::abs(after - target_bytes) < best_distance) {
                best = std::make_pair(down, up);
                best_distance = std::abs(after - target_bytes);
            }
        }
    }
    return best;
}

double RungCrfSearch::window_bytes(const Window& w, const std::vector<int>& plan) const {
    double bytes = 0;
    for (std::size_t k = w.first; k <= w.last; ++k) bytes += size_at(k, plan[k]);
    return bytes;
}

double RungCrfSearch::window_bytes_at(std::size_t window, int crf) const {
    return window_sizes_.at(window).at(static_cast<std::size_t>(crf));
}

double RungCrfSearch::bytes_of(const std::vector<int>& plan) const {
    double bytes = 0;
    for (std::size_t k = 0; k < plan.size(); ++k) bytes += size_at(k, plan[k]);
    return bytes;
}

bool RungCrfSearch::all_made(const std::vector<int>& plan) const {
    for (std::size_t k = 0; k < plan.size(); ++k)
        if (!made(k, plan[k])) return false;
    return true;
}

// A chunk's size at a CRF: made, or between two made CRFs log-linearly, or
// past them with the slope of its two nearest; one made: the lead's shape
// from there (follow()), else the rung's median slope; none: the lead's.
double RungCrfSearch::size_at(std::size_t chunk, int crf) const {
    const auto& sizes = made_[chunk];
    const auto shape_at = [&](int c) { return shape_[chunk][static_cast<std::size_t>(std::clamp(c, 0, kMaxCrf))]; };
    if (sizes.empty()) return shape_at(crf) * shape_ratio_;
    if (const auto it = sizes.find(crf); it != sizes.end()) return static_cast<double>(it->second);
    if (sizes.size() == 1 && !shape_.empty()) {
        const auto& [made_crf, made_bytes] = *sizes.begin();
        return static_cast<double>(made_bytes) * shape_at(crf) / std::max(shape_at(made_crf), 1e-3);
    }
    const auto above = sizes.upper_bound(crf);
    if (above != sizes.begin() && above != sizes.end()) {
        const auto below = std::prev(above);
        const double t = static_cast<double>(crf - below->first) / (above->first - below->first);
        const double a = std::log(static_cast<double>(below->second));
        const double b = std::log(static_cast<double>(above->second));
        return std::exp(a + t * (b - a));
    }
    // Past the made CRFs: from the nearest, with its neighbour's slope.
    const auto nearest = above == sizes.end() ? std::prev(sizes.end()) : above;
    double slope = rung_slope_;
    if (sizes.size() > 1) {
        const auto other = above == sizes.end() ? std::prev(nearest) : std::next(nearest);
        slope = log_size_slope(nearest->first, static_cast<double>(nearest->second), other->first,
                               static_cast<double>(other->second));
    }
    return static_cast<double>(nearest->second) * std::exp(slope * (crf - nearest->first));
}

// The median over the chunks made at two CRFs or more of the slope between
// their lowest and highest; none: kDefaultLogRatePerCrf.
double RungCrfSearch::rung_slope() const {
    std::vector<double> slopes;
    for (const auto& sizes : made_) {
        if (sizes.size() < 2) continue;
        const auto& lo = *sizes.begin();
        const auto& hi = *std::prev(sizes.end());
        slopes.push_back(log_size_slope(lo.first, static_cast<double>(lo.second), hi.first,
                                        static_cast<double>(hi.second)));
    }
    if (slopes.empty()) return kDefaultLogRatePerCrf;
    const auto middle = slopes.begin() + static_cast<std::ptrdiff_t>(slopes.size() / 2);
    std::nth_element(slopes.begin(), middle, slopes.end());
    return *middle;
}

CrfVerdict RungCrfSearch::verdict_of(const std::vector<int>& plan) const {
    const auto [target_bytes, bottom, top] = band();
    const double total = bytes_of(plan);
    const bool mixed = std::any_of(plan.begin(), plan.end(), [&](int crf) { return crf < base_; });
    if (total > top) return CrfVerdict::over_at_max_crf;
    if (total >= bottom) return mixed ? CrfVerdict::mixed : CrfVerdict::on_target;
    if (base_ <= budget_.ceiling_crf) return CrfVerdict::at_ceiling;
    // Under the band above the ceiling: a step lower would put a segment
    // over its cap, or the chunks are too coarse for the band.
    const std::vector<int> lower = plan_at(base_ - 1, reference_rate_);
    const bool held_back = std::any_of(lower.begin(), lower.end(), [&](int crf) { return crf > base_ - 1; });
    return held_back ? CrfVerdict::under_for_peaks : CrfVerdict::mixed;
}

// The rung's CRF is its segments' not capped (mixed: the lower).
void RungCrfSearch::ask() {
    choice_.verdict = CrfVerdict::encode_next;
    choice_.crf = *std::min_element(plan_.begin(), plan_.end());
    choice_.chunk_crf = plan_;
    choice_.kbps = 0;
}

void RungCrfSearch::settle(CrfVerdict verdict) {
    settled_ = true;
    ask();
    choice_.verdict = verdict;
    choice_.kbps = kbps_of(bytes_of(plan_), budget_.seconds);
}

// Out of encodes: every chunk whose CRF was not made takes the nearest
// made above it (smaller, so never further over the band), else its
// highest made.
void RungCrfSearch::give_up() {
    for (std::size_t k = 0; k < plan_.size(); ++k) {
        if (made(k, plan_[k])) continue;
        const auto above = made_[k].lower_bound(plan_[k]);
        plan_[k] = above != made_[k].end() ? above->first : std::prev(made_[k].end())->first;
    }
    settle(CrfVerdict::search_limit);
}

LadderCrfSearch::LadderCrfSearch(const std::vector<Rung>& rungs, double frame_rate, int first_crf) {
    if (rungs.empty()) throw std::invalid_argument("LadderCrfSearch: no rungs");
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        searches_.emplace_back(rungs[i].target_kbps, frame_rate, first_crf);
        pixels_.push_back(std::max<std::int64_t>(rungs[i].pixels, 1));
        if (rungs[i].pixels < rungs[lead_].pixels) lead_ = i;
    }
    if (rungs.size() >= 3) {
        std::vector<std::size_t> order(rungs.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return pixels_[a] > pixels_[b]; });
        largest_ = order[0];
        next_largest_ = order[1];
    }
}

bool LadderCrfSearch::settled() const {
    return std::all_of(searches_.begin(), searches_.end(), [](const RungCrfSearch& s) { return s.settled(); });
}

bool LadderCrfSearch::searching(std::size_t i) const {
    return !searches_.at(i).settled() && (i == lead_ || (handed_off_ && (i != largest_ || largest_started_)));
}

void LadderCrfSearch::record(std::size_t i, const std::vector<std::int64_t>& chunk_bytes,
                             const std::vector<std::int64_t>& chunk_frames) {
    if (!searching(i)) return;
    // The lead's latest sizes shape this rung's next decision.
    if (i != lead_) follow_lead(i);
    searches_[i].record(chunk_bytes, chunk_frames);
    if (i == next_largest_ && handed_off_ && largest_ && !largest_started_) start_largest();
    // Once, after the lead's kLeadEncodes encodes or once its CRF is found:
    // a later record of the lead must not move the CRF of a rung that
    // encoded in that pass but has not recorded.
    const RungCrfSearch& lead = searches_[lead_];
    const bool near = lead.trials() >= kLeadEncodes &&
                      (lead.last_move() <= kLeadNearMove || lead.trials() >= kLeadMostEncodes);
    if (i != lead_ || handed_off_ || !(near || lead.crf_found())) return;
    handed_off_ = true;
    // Every other rung plans its first encode from the lead's sizes (the
    // largest once the next largest has encoded).
    for (std::size_t k = 0; k < searches_.size(); ++k)
        if (k != lead_ && k != largest_) follow_lead(k);
    if (largest_ && *largest_ == lead_) largest_started_ = true;
}

void LadderCrfSearch::start_largest() {
    largest_started_ = true;
    const std::size_t l = *largest_;
    const double pixels_over_next = static_cast<double>(pixels_[l]) / static_cast<double>(pixels_[next_largest_]);
    searches_[l].follow(searches_[next_largest_].predicted_sizes(), searches_[next_largest_].chunk_seconds(),
                        std::pow(pixels_over_next, kBytesPerPixelExponent));
}

void LadderCrfSearch::follow_lead(std::size_t i) {
    const double pixels_over_lead = static_cast<double>(pixels_[i]) / static_cast<double>(pixels_[lead_]);
    searches_[i].follow(searches_[lead_].predicted_sizes(), searches_[lead_].chunk_seconds(),
                        std::pow(pixels_over_lead, kBytesPerPixelExponent));
}

}  // namespace ladder::engine
