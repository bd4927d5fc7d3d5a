#include "engine/encode/idle_encoders.hpp"

namespace ladder::engine {

std::optional<IdleEncoder> IdleEncoders::take(const gpu::EncoderSlot& slot, int rung) {
    std::lock_guard lock(mu_);
    auto it = kept_.find({slot.id, rung});
    if (it == kept_.end()) return std::nullopt;
    IdleEncoder out = std::move(it->second);
    kept_.erase(it);
    return out;
}

bool IdleEncoders::keep(const gpu::EncoderSlot& slot, int rung, IdleEncoder& encoder) {
    if (!slot.traits().controls_session_rate) return false;
    std::lock_guard lock(mu_);
    if (stopped_) return false;
    // take() emptied the place when the session started on this rung.
    kept_[{slot.id, rung}] = std::move(encoder);
    return true;
}

void IdleEncoders::close(const gpu::EncoderSlot& slot, const std::function<bool(int)>& done, bool everything) {
    std::vector<int> rungs;
    {
        std::lock_guard lock(mu_);
        for (const auto& [key, encoder] : kept_)
            if (key.first == slot.id) rungs.push_back(key.second);
    }
    std::erase_if(rungs, [&](int rung) { return !everything && !done(rung); });
    std::vector<IdleEncoder> closing;
    std::lock_guard lock(mu_);
    for (int rung : rungs) {
        auto it = kept_.find({slot.id, rung});
        if (it == kept_.end()) continue;
        closing.push_back(std::move(it->second));
        kept_.erase(it);
    }
}

void IdleEncoders::stop_keeping() {
    {
        std::lock_guard lock(mu_);
        stopped_ = true;
    }
    clear();
}

void IdleEncoders::clear() {
    std::map<std::pair<int, int>, IdleEncoder> closing;
    std::lock_guard lock(mu_);
    closing.swap(kept_);
}

}  // namespace ladder::engine
