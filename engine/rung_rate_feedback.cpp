#include "engine/rung_rate_feedback.hpp"

#include <algorithm>
#include <cmath>

namespace ladder::engine {

namespace {
// A wild chunk (a fade, a black intro) must not swing the rest far.
constexpr double kMinResponse = 0.5;
constexpr double kMaxResponse = 2.0;
}  // namespace

double RungRateFeedback::response_locked(const std::string& encoder, double prior) const {
    auto it = response_.find(encoder);
    return it == response_.end() ? std::clamp(prior, kMinResponse, kMaxResponse) : it->second;
}

std::optional<double> RungRateFeedback::measured_response(const std::string& encoder) const {
    std::lock_guard lock(mu_);
    auto it = response_.find(encoder);
    if (it == response_.end()) return std::nullopt;
    return it->second;
}

double RungRateFeedback::response(const std::string& encoder) const {
    std::lock_guard lock(mu_);
    return response_locked(encoder);
}

RungRateFeedback::Request RungRateFeedback::begin(const std::string& encoder, double seconds, double prior) {
    std::lock_guard lock(mu_);
    // Only the encoder's systematic response is corrected. Making up one
    // chunk's overshoot in the next would move bits between scenes the way
    // no whole-file VBR does, and cost PSNR: a first version that did so
    // lost 0.47 dB at 720p on the 2-core benchmark (docs/benchmarks.md).
    const double r = response_locked(encoder, prior);
    Request req;
    req.kbps = std::max(1, static_cast<int>(std::lround(target_kbps_ / r)));
    req.id = next_id_++;
    pending_[req.id] = Pending{encoder, req.kbps, seconds};
    return req;
}

void RungRateFeedback::finish(const Request& request, double bits, std::optional<double> seconds) {
    std::lock_guard lock(mu_);
    auto it = pending_.find(request.id);
    if (it == pending_.end()) return;
    Pending p = it->second;
    pending_.erase(it);
    if (seconds) p.seconds = *seconds;
    if (p.kbps <= 0 || p.seconds <= 0) return;
    Sums& s = sums_[p.encoder];
    s.asked_bits += p.kbps * 1000.0 * p.seconds;
    s.made_bits += bits;
    response_[p.encoder] = std::clamp(s.made_bits / s.asked_bits, kMinResponse, kMaxResponse);
}

void RungRateFeedback::abandon(const Request& request) {
    std::lock_guard lock(mu_);
    pending_.erase(request.id);
}

}  // namespace ladder::engine
