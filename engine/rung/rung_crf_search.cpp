#include "engine/rung/rung_crf_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace ladder::engine {
namespace {

struct Rated {
    const CrfTrial* trial;
    double kbps;
};

bool at_best_quality(const CrfBudget& budget, const CrfTrial& t) {
    return t.crf <= budget.ceiling_crf || (t.psnr_db && *t.psnr_db >= budget.ceiling_psnr_db);
}

CrfChoice settled(CrfVerdict verdict, const Rated& r) {
    CrfChoice c;
    c.verdict = verdict;
    c.crf = r.trial->crf;
    c.chunk_crf.assign(r.trial->chunk_bytes.size(), r.trial->crf);
    c.kbps = r.kbps;
    return c;
}

// The lowest CRF (best quality) among the trials that match.
template <typename Pred>
const Rated* lowest_crf(const std::vector<Rated>& rated, Pred pred) {
    const Rated* best = nullptr;
    for (const auto& r : rated)
        if (pred(r) && (!best || r.trial->crf < best->trial->crf)) best = &r;
    return best;
}

template <typename Pred>
const Rated* highest_crf(const std::vector<Rated>& rated, Pred pred) {
    const Rated* best = nullptr;
    for (const auto& r : rated)
        if (pred(r) && (!best || r.trial->crf > best->trial->crf)) best = &r;
    return best;
}

// Chunks at `over`'s CRF where the rate allows, the rest at `under`'s (one
// step higher): start all at `under`, then move chunks up in order of the
// fewest extra bits (ties: earlier chunk first) while the total stays at or
// below the target. A few large chunks (a short rung) can leave that under
// the band: then the one chunk that brings it closest to the target while
// staying inside the band moves too (over the target, never over the band).
CrfChoice mix(const CrfBudget& budget, const Rated& over, const Rated& under) {
    const auto& hi = over.trial->chunk_bytes;
    const auto& lo = under.trial->chunk_bytes;
    std::vector<std::size_t> order(hi.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return hi[a] - lo[a] < hi[b] - lo[b]; });
    const double target_bytes = budget.target_kbps * 1000.0 / 8.0 * budget.seconds;
    double total = std::accumulate(lo.begin(), lo.end(), 0.0);
    CrfChoice c;
    c.verdict = CrfVerdict::mixed;
    c.crf = over.trial->crf;
    c.chunk_crf.assign(hi.size(), under.trial->crf);
    for (std::size_t i : order) {
        const double extra = static_cast<double>(hi[i] - lo[i]);
        if (total + extra > target_bytes) continue;
        total += extra;
        c.chunk_crf[i] = over.trial->crf;
    }
    if (total < target_bytes * (1 - budget.tolerance)) {
        std::optional<std::size_t> best;
        for (std::size_t i : order) {
            const double after = total + static_cast<double>(hi[i] - lo[i]);
            if (c.chunk_crf[i] == over.trial->crf || after > target_bytes * (1 + budget.tolerance)) continue;
            if (!best || std::abs(after - target_bytes) < std::abs(total + static_cast<double>(hi[*best] - lo[*best]) -
                                                                   target_bytes))
                best = i;
        }
        if (best && std::abs(total + static_cast<double>(hi[*best] - lo[*best]) - target_bytes) <
                        target_bytes - total) {
            total += static_cast<double>(hi[*best] - lo[*best]);
            c.chunk_crf[*best] = over.trial->crf;
        }
    }
    c.kbps = total * 8.0 / 1000.0 / budget.seconds;
    return c;
}

double slope_between(const Rated& a, const Rated& b) {
    return log_size_slope(a.trial->crf, a.kbps, b.trial->crf, b.kbps);
}

int crf_for_target(const CrfBudget& budget, const Rated& from, double slope) {
    const double steps = (std::log(budget.target_kbps) - std::log(std::max(from.kbps, 1e-3))) / slope;
    return static_cast<int>(std::lround(from.trial->crf + steps));
}

bool tried(const std::vector<Rated>& rated, int crf) {
    return std::any_of(rated.begin(), rated.end(), [&](const Rated& r) { return r.trial->crf == crf; });
}

// The next CRF: inside the bracket when there is one, else past the
// closest trial in the direction of the target, never one already tried.
int next_crf(const CrfBudget& budget, const std::vector<Rated>& rated, const Rated* over, const Rated* under) {
    int lo_crf = budget.ceiling_crf;
    int hi_crf = kMaxCrf;
    double slope = kDefaultLogRatePerCrf;
    const Rated* from = nullptr;
    if (over && under) {
        lo_crf = over->trial->crf + 1;
        hi_crf = under->trial->crf - 1;
        slope = slope_between(*over, *under);
        from = over;
    } else {
        // All on one side: from the closest to the target, with the slope
        // of the two closest when there are two.
        std::vector<const Rated*> by_distance;
        for (const auto& r : rated) by_distance.push_back(&r);
        std::stable_sort(by_distance.begin(), by_distance.end(), [&](const Rated* a, const Rated* b) {
            return std::abs(std::log(a->kbps / budget.target_kbps)) < std::abs(std::log(b->kbps / budget.target_kbps));
        });
        from = by_distance.front();
        if (by_distance.size() > 1) slope = slope_between(*by_distance[0], *by_distance[1]);
        if (over) lo_crf = over->trial->crf + 1;   // all over: only higher CRFs
        if (under) hi_crf = under->trial->crf - 1;  // all under: only lower ones
    }
    const int wanted = std::clamp(crf_for_target(budget, *from, slope), lo_crf, hi_crf);
    // The untried CRF in [lo_crf, hi_crf] nearest the wanted one (the
    // callers leave at least one: an adjacent bracket is mixed instead).
    for (int d = 0; d <= kMaxCrf; ++d) {
        if (wanted - d >= lo_crf && !tried(rated, wanted - d)) return wanted - d;
        if (wanted + d <= hi_crf && !tried(rated, wanted + d)) return wanted + d;
    }
    throw std::logic_error("choose_crf: no CRF left to try");
}

}  // namespace

double log_size_slope(int crf_a, double size_a, int crf_b, double size_b) {
    if (crf_a == crf_b) return kDefaultLogRatePerCrf;
    const double s = (std::log(std::max(size_a, 1e-3)) - std::log(std::max(size_b, 1e-3))) / (crf_a - crf_b);
    return std::clamp(s, -0.5, -0.01);
}

double trial_kbps(const CrfBudget& budget, const CrfTrial& trial) {
    const double bytes = std::accumulate(trial.chunk_bytes.begin(), trial.chunk_bytes.end(), 0.0);
    return bytes * 8.0 / 1000.0 / budget.seconds;
}

CrfChoice choose_crf(const CrfBudget& budget, std::span<const CrfTrial> trials, int first) {
    if (budget.target_kbps <= 0 || budget.seconds <= 0)
        throw std::invalid_argument("choose_crf: the budget needs a target and a length");
    if (trials.empty()) {
        CrfChoice c;
        c.crf = std::clamp(first, budget.ceiling_crf, kMaxCrf);
        return c;
    }
    std::vector<Rated> rated;
    for (const auto& t : trials) {
        if (t.chunk_bytes.size() != trials.front().chunk_bytes.size())
            throw std::invalid_argument("choose_crf: trials of different chunks");
        rated.push_back({&t, trial_kbps(budget, t)});
    }
    const double top = budget.target_kbps * (1 + budget.tolerance);
    const double bottom = budget.target_kbps * (1 - budget.tolerance);
    const auto is_over = [&](const Rated& r) { return r.kbps > top; };
    const auto is_under = [&](const Rated& r) { return r.kbps < bottom; };

    if (const Rated* in = lowest_crf(rated, [&](const Rated& r) { return !is_over(r) && !is_under(r); }))
        return settled(CrfVerdict::on_target, *in);
    if (const Rated* best =
            lowest_crf(rated, [&](const Rated& r) { return is_under(r) && at_best_quality(budget, *r.trial); }))
        return settled(CrfVerdict::at_ceiling, *best);
    const Rated* over = highest_crf(rated, is_over);
    const Rated* under = lowest_crf(rated, is_under);
    if (over && over->trial->crf >= kMaxCrf) return settled(CrfVerdict::over_at_max_crf, *over);
    if (over && under && under->trial->crf <= over->trial->crf + 1) return mix(budget, *over, *under);
    CrfChoice c;
    c.crf = next_crf(budget, rated, over, under);
    return c;
}

const char* crf_verdict_name(CrfVerdict verdict) {
    switch (verdict) {
        case CrfVerdict::on_target: return "on_target";
        case CrfVerdict::at_ceiling: return "at_quality_ceiling";
        case CrfVerdict::over_at_max_crf: return "over_at_largest_crf";
        case CrfVerdict::mixed: return "mixed";
        case CrfVerdict::encode_next: return "searching";
        case CrfVerdict::search_limit: return "search_limit";
        case CrfVerdict::under_for_peaks: return "under_for_peaks";
    }
    return "?";
}

}  // namespace ladder::engine
