#include "engine/encode/idle_encoders.hpp"

#include <algorithm>

namespace ladder::engine {

IdleEncoders::~IdleEncoders() { join_openers(); }

IdleEncoders::Place IdleEncoders::place(const gpu::EncoderSlot& slot, int rung) {
    return {slot.device_index, slot.encoder, rung};
}

bool IdleEncoders::may_keep(const gpu::EncoderSlot& slot) {
    return slot.kind != gpu::DeviceKind::cpu && slot.traits().controls_session_rate;
}

std::optional<IdleEncoder> IdleEncoders::take(const gpu::EncoderSlot& slot, int rung) {
    const Place where = place(slot, rung);
    std::unique_lock lock(mu_);
    // One kept is taken at once; with none, one being opened is waited for.
    opened_cv_.wait(lock, [&] { return kept_.count(where) != 0 || opening_.count(where) == 0; });
    auto it = kept_.find(where);
    if (it == kept_.end()) return std::nullopt;
    IdleEncoder out = std::move(it->second);
    kept_.erase(it);
    return out;
}

bool IdleEncoders::keep(const gpu::EncoderSlot& slot, int rung, IdleEncoder& encoder) {
    if (!may_keep(slot)) return false;
    std::lock_guard lock(mu_);
    if (stopped_) return false;
    kept_.emplace(place(slot, rung), std::move(encoder));
    return true;
}

bool IdleEncoders::open_ahead(const gpu::EncoderSlot& slot, int rung, Opener open, bool in_background, int most) {
    if (!may_keep(slot)) return false;
    const Place where = place(slot, rung);
    {
        std::lock_guard lock(mu_);
        if (stopped_ || static_cast<int>(ahead_of_.count(where)) >= std::max(most, 1)) return false;
        opening_.insert(where);
        ahead_of_.insert(where);
    }
    auto run = [this, where, open = std::move(open)] {
        std::optional<IdleEncoder> encoder;
        try {
            encoder = open();
        } catch (...) {
            // not opened: the session that comes to this rung opens again and says why
        }
        return opened(where, std::move(encoder));
    };
    if (!in_background) return run();
    std::lock_guard lock(mu_);
    openers_.emplace_back(std::move(run));
    return true;
}

bool IdleEncoders::holds(const gpu::EncoderSlot& slot, int rung) const {
    const Place where = place(slot, rung);
    std::lock_guard lock(mu_);
    return kept_.count(where) != 0 || opening_.count(where) != 0;
}

bool IdleEncoders::opened(const Place& where, std::optional<IdleEncoder> encoder) {
    std::optional<IdleEncoder> closing;  // declared first: closed after the lock is released
    bool kept = false;
    {
        std::lock_guard lock(mu_);
        opening_.erase(opening_.find(where));
        kept = encoder && encoder->backend && !stopped_;
        if (encoder && encoder->backend) ++ahead_.opened;
        if (kept)
            kept_.emplace(where, std::move(*encoder));
        else if (encoder && encoder->backend)
            ++ahead_.never_used;
        closing = std::move(encoder);
    }
    opened_cv_.notify_all();
    return kept;
}

void IdleEncoders::close(const gpu::EncoderSlot& slot, const std::function<bool(int)>& done, bool everything) {
    std::set<int> rungs;
    {
        std::lock_guard lock(mu_);
        for (const auto& [where, encoder] : kept_)
            if (std::get<0>(where) == slot.device_index && std::get<1>(where) == slot.encoder)
                rungs.insert(std::get<2>(where));
    }
    std::erase_if(rungs, [&](int rung) { return !everything && !done(rung); });
    std::vector<IdleEncoder> closing;
    std::lock_guard lock(mu_);
    for (int rung : rungs) {
        auto [first, last] = kept_.equal_range(place(slot, rung));
        for (auto it = first; it != last; ++it) closing.push_back(std::move(it->second));
        kept_.erase(first, last);
    }
    for (const IdleEncoder& encoder : closing) ahead_.never_used += encoder.opened_ahead;
}

void IdleEncoders::count_never_used(const std::multimap<Place, IdleEncoder>& closing) {
    for (const auto& [where, encoder] : closing) ahead_.never_used += encoder.opened_ahead;
}

IdleEncoders::AheadCounts IdleEncoders::ahead_counts() const {
    std::lock_guard lock(mu_);
    return ahead_;
}

void IdleEncoders::stop_keeping() {
    std::multimap<Place, IdleEncoder> closing;
    std::lock_guard lock(mu_);
    stopped_ = true;
    closing.swap(kept_);
    count_never_used(closing);
}

void IdleEncoders::join_openers() {
    std::vector<std::jthread> openers;
    {
        std::lock_guard lock(mu_);
        openers.swap(openers_);
    }
    openers.clear();  // joins, without the lock: each one ends in opened()
}

void IdleEncoders::clear() {
    join_openers();
    std::multimap<Place, IdleEncoder> closing;
    std::lock_guard lock(mu_);
    closing.swap(kept_);
    count_never_used(closing);
}

}  // namespace ladder::engine
