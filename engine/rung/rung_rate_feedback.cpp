#include "engine/rung/rung_rate_feedback.hpp"

#include <algorithm>
#include <cmath>

#include "engine/rung/chunk_complexity.hpp"

namespace ladder::engine {

namespace {
// A wild chunk (a fade, a black intro) must not swing the rest far.
constexpr double kMinResponse = 0.5;
constexpr double kMaxResponse = 2.0;
// How far the sessions left may be pushed to make up for the ones before.
// Down only a little, and only where sessions get complexity shares: asking
// the seconds left for less starves their hard chunks unless their shares
// protect them. Without shares, scene-cuts 1080p on 2 cores lost 0.7 dB at
// the same rate (a first session over a hard cut made 27% over, and the one
// over the next hard cut was asked for 0.9x); a 360p session asked for 0.6x
// of the target once cost 1.5 dB (docs/benchmarks.md). With no make-up
// down at all, a first session that made 9-18% over left a whole rung 6-8%
// over.
constexpr double kMinMakeUpWithShares = 0.85;
constexpr double kMaxMakeUp = 1.5;

double clamped(double response) { return std::clamp(response, kMinResponse, kMaxResponse); }
}  // namespace

double RungRateFeedback::Response::of_session(int chunks) const {
    const int n = std::max(1, chunks);
    return (first + (n - 1) * rest) / n;
}

std::optional<double> RungRateFeedback::Sums::response() const {
    if (asked_bits <= 0) return std::nullopt;
    return clamped(made_bits / asked_bits);
}

RungRateFeedback::Response RungRateFeedback::response_locked(const std::string& encoder, const Response& prior) const {
    Response r{clamped(prior.first), clamped(prior.rest)};
    auto it = parts_.find(encoder);
    if (it == parts_.end()) return r;
    if (auto m = it->second.first.response()) r.first = *m;
    if (auto m = it->second.rest.response()) r.rest = *m;
    return r;
}

RungRateFeedback::Response RungRateFeedback::response(const std::string& encoder, const Response& prior) const {
    std::lock_guard lock(mu_);
    return response_locked(encoder, prior);
}

RungRateFeedback::Measured RungRateFeedback::measured(const std::string& encoder) const {
    std::lock_guard lock(mu_);
    auto it = parts_.find(encoder);
    if (it == parts_.end()) return {};
    return {it->second.first.response(), it->second.rest.response()};
}

double RungRateFeedback::make_up_locked(double left_weight) const {
    if (total_seconds_ <= 0) return 1.0;
    double started_seconds = done_seconds_;
    double expected_bits = made_bits_;
    for (const auto& [id, p] : pending_) {
        started_seconds += p.seconds;
        expected_bits += p.expected_bits;
    }
    const double left_seconds = total_seconds_ - started_seconds;
    // Until a session has finished (the first wave), or with nothing left
    // to start, a session asks for its weight's share of the target as it
    // is. Near the end a few seconds would have to fix the whole rung; the
    // clamp below bounds how far they are pushed.
    if (left_seconds <= 0 || done_seconds_ <= 0) return 1.0;
    // The seconds left, each at its weight, share what is left of the
    // rung's bits; this is how far that puts them from their weight's share
    // of the target.
    const double left_shares =
        left_seconds * std::clamp(left_weight, ChunkComplexity::kMinWeight, ChunkComplexity::kMaxWeight);
    const double target_bits = target_kbps_ * 1000.0 * total_seconds_;
    const double want = (target_bits - expected_bits) / (target_kbps_ * 1000.0 * left_shares);
    return std::clamp(want, overshoots_made_up_ ? kMinMakeUpWithShares : 1.0, kMaxMakeUp);
}

void RungRateFeedback::make_up_overshoots() {
    std::lock_guard lock(mu_);
    overshoots_made_up_ = true;
}

RungRateFeedback::Request RungRateFeedback::begin(const std::string& encoder, int chunks, double seconds,
                                                 const Response& prior, double weight, double left_weight,
                                                 int max_kbps) {
    std::lock_guard lock(mu_);
    // A session asks for its weight's share of what the seconds left must
    // make / its expected response.
    const double r = clamped(response_locked(encoder, prior).of_session(chunks));
    const double make_up = make_up_locked(left_weight);
    const double share = std::clamp(weight, ChunkComplexity::kMinWeight, ChunkComplexity::kMaxWeight);
    const double wanted_kbps = target_kbps_ * make_up * share / r;
    // Above the encoder's limit it is asked for the limit, and makes its part.
    const double asked_kbps = std::min(wanted_kbps, static_cast<double>(std::max(1, max_kbps)));
    Request req;
    req.kbps = std::max(1, static_cast<int>(std::lround(asked_kbps)));
    req.id = next_id_++;
    pending_[req.id] = Pending{encoder, req.kbps, seconds,
                               target_kbps_ * make_up * share * 1000.0 * seconds * (asked_kbps / wanted_kbps)};
    return req;
}

void RungRateFeedback::finish(const Request& request, const Made& first, const Made& rest) {
    std::lock_guard lock(mu_);
    auto it = pending_.find(request.id);
    if (it == pending_.end()) return;
    const Pending p = it->second;
    pending_.erase(it);
    if (p.kbps <= 0) return;
    const auto add = [&p](Sums& s, const Made& m) {
        if (m.seconds <= 0) return;
        s.asked_bits += p.kbps * 1000.0 * m.seconds;
        s.made_bits += m.bits;
    };
    Parts& parts = parts_[p.encoder];
    add(parts.first, first);
    add(parts.rest, rest);
    made_bits_ += first.bits + rest.bits;
    done_seconds_ += first.seconds + rest.seconds;
}

RungRateFeedback::Response typical_response(const gpu::EncoderTraits& encoder) {
    return {encoder.typical_response.first, encoder.typical_response.rest};
}

void RungRateFeedback::abandon(const Request& request) {
    std::lock_guard lock(mu_);
    pending_.erase(request.id);
}

}  // namespace ladder::engine
