#include "engine/schedule/chunk_dispatcher.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/base/errors.hpp"
#include "gpu/encoder_traits.hpp"

namespace ladder::engine {

// A rung's queue as its producers see it: every call goes into the board.
class ChunkDispatcher::Inlet final : public ChunkInlet {
public:
    Inlet(ChunkDispatcher& board, std::size_t rung) : board_(board), rung_(rung) {}
    bool push(RawChunk chunk, std::stop_token stop) override { return board_.push(rung_, std::move(chunk), stop); }
    void close() override { board_.close(rung_); }
    void waiting_for_memory(bool waiting) override { board_.producer_waiting(waiting); }

private:
    ChunkDispatcher& board_;
    std::size_t rung_;
};

ChunkDispatcher::ChunkDispatcher(std::vector<RungPlan> rungs, std::size_t queue_capacity, DispatchMode mode,
                                 int max_tries, int expected_workers, int max_session_chunks,
                                 int min_sessions_per_rung, int max_hw_session_chunks,
                                 std::chrono::steady_clock::duration session_wait)
    : capacity_(queue_capacity ? queue_capacity : 1), session_wait_(session_wait) {
    ScheduleLimits& limits = state_.limits;
    limits.mode = mode;
    limits.max_tries = std::max(1, max_tries);
    limits.expected_workers = static_cast<std::size_t>(std::max(1, expected_workers));
    limits.max_session_chunks = std::max(1, max_session_chunks);
    limits.min_sessions_per_rung = std::max(1, min_sessions_per_rung);
    limits.max_hw_session_chunks = max_hw_session_chunks > 0 ? max_hw_session_chunks : std::max(1, max_session_chunks);
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        RungSchedule r;
        r.plan = std::move(rungs[i]);
        state_.rungs.push_back(std::move(r));
        inlets_.push_back(std::make_unique<Inlet>(*this, i));
    }
    chunks_.resize(state_.rungs.size());
}

ChunkDispatcher::~ChunkDispatcher() = default;

ChunkInlet& ChunkDispatcher::queue(int rung) { return *inlets_.at(static_cast<std::size_t>(rung)); }

double ChunkDispatcher::now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void ChunkDispatcher::changed() {
    ++generation_;
    cv_.notify_all();
}

bool ChunkDispatcher::push(std::size_t rung, RawChunk chunk, std::stop_token stop) {
    std::unique_lock lock(mu_);
    RungSchedule& r = state_.rungs[rung];
    // Backpressure: the rung holds capacity_ chunks at most.
    if (!cv_.wait(lock, stop, [&] { return r.queued.size() < capacity_; })) return false;
    r.queued.push_back({chunk.index, chunk.gpu, static_cast<std::int64_t>(chunk.frames.size())});
    chunks_[rung].push_back(std::move(chunk));
    changed();
    return true;
}

void ChunkDispatcher::close(std::size_t rung) {
    std::lock_guard lock(mu_);
    state_.rungs[rung].closed = true;
    changed();
}

void ChunkDispatcher::producer_waiting(bool waiting) {
    std::lock_guard lock(mu_);
    state_.producers_waiting += waiting ? 1 : -1;
    // Sessions waiting for a next chunk stop waiting.
    if (waiting) changed();
}

std::size_t ChunkDispatcher::queued_chunks() const {
    std::lock_guard lock(mu_);
    std::size_t queued = 0;
    for (const RungSchedule& r : state_.rungs) queued += r.queued.size();
    return queued;
}

int ChunkDispatcher::add_worker(const std::string& encoder, int pinned_rung, int gpu) {
    std::lock_guard lock(mu_);
    SlotState w;
    w.encoder = encoder;
    // The slot's one look-up of its encoder's record (a name ladder does
    // not drive, as tests give: no GPU session rules).
    const gpu::EncoderTraits* traits = gpu::find_encoder_traits(encoder);
    w.controls_session_rate = traits && traits->controls_session_rate;
    w.pinned = pinned_rung;
    w.gpu = gpu;
    state_.workers.push_back(std::move(w));
    check_orphans();  // the last one to register may complete the picture
    return static_cast<int>(state_.workers.size()) - 1;
}

int ChunkDispatcher::open_ahead(int worker) {
    std::lock_guard lock(mu_);
    SlotState& w = slot(worker);
    if (w.rung >= 0 || !w.encoders_on.empty()) return -1;  // it has worked already
    state_.now = now();
    const int rung = opening_rung(state_, worker);
    if (rung < 0) return -1;
    w.opened_ahead = rung;
    w.encoders_on.insert(rung);
    changed();
    return rung;
}

void ChunkDispatcher::not_opened_ahead(int worker) {
    std::lock_guard lock(mu_);
    SlotState& w = slot(worker);
    if (w.opened_ahead >= 0) w.encoders_on.erase(w.opened_ahead);
    w.opened_ahead = -1;
    changed();
}

void ChunkDispatcher::set_frame_gpus(std::set<int> gpus) {
    std::lock_guard lock(mu_);
    state_.frame_gpus = std::move(gpus);
    check_orphans();
}

void ChunkDispatcher::close_session(SlotState& w) {
    w.session_rung = -1;
    w.session_first = w.session_next = w.session_end = 0;
}

void ChunkDispatcher::check_orphans() {
    if (!failure_) failure_ = orphan_failure(state_);
    if (failure_) cv_.notify_all();
}

RawChunk ChunkDispatcher::take_queued(std::size_t rung, int index) {
    std::deque<QueuedChunk>& queued = state_.rungs[rung].queued;
    const auto at = std::find_if(queued.begin(), queued.end(), [index](const QueuedChunk& c) { return c.index == index; });
    const auto pos = at - queued.begin();
    std::deque<RawChunk>& chunks = chunks_[rung];
    if (at == queued.end() || chunks[static_cast<std::size_t>(pos)].index != index)
        throw std::logic_error(fmt::format("rung {}: chunk {} is not queued", state_.rungs[rung].plan.name, index));
    RawChunk chunk = std::move(chunks[static_cast<std::size_t>(pos)]);
    chunks.erase(chunks.begin() + pos);
    queued.erase(at);
    return chunk;
}

std::optional<RawChunk> ChunkDispatcher::take(int worker, bool& nothing_left) {
    nothing_left = false;
    if (failure_) throw RunError(*failure_);
    SlotState& w = slot(worker);
    close_session(w);  // a new one starts here
    state_.now = now();
    const Pick pick = pick_next(state_, worker);
    if (pick.kind == Pick::Kind::wait || pick.kind == Pick::Kind::done) {
        w.rung = -1;  // helpers leave a rung once it has nothing ready
        nothing_left = pick.kind == Pick::Kind::done;
        return std::nullopt;
    }
    // The chunk leaves its queue and counts as in flight in one step under mu_.
    const auto rung = static_cast<std::size_t>(pick.rung);
    if (pick.kind == Pick::Kind::steal) slot(pick.victim).session_end = pick.index;
    RawChunk chunk = take_queued(rung, pick.index);
    hand_out(worker, rung, chunk);
    w.session_rung = pick.rung;
    w.session_first = pick.index;
    w.session_next = pick.index + 1;
    w.session_end = pick.session_end;
    return chunk;
}

void ChunkDispatcher::hand_out(int worker, std::size_t rung, const RawChunk& chunk) {
    SlotState& w = slot(worker);
    RungSchedule& r = state_.rungs[rung];
    w.rung = static_cast<int>(rung);
    w.opened_ahead = -1;
    if (w.controls_session_rate) w.encoders_on.insert(static_cast<int>(rung));
    r.claimed_frames += static_cast<std::int64_t>(chunk.frames.size());
    w.started = state_.now;
    w.chunk_work = static_cast<double>(chunk.frames.size()) * static_cast<double>(r.plan.pixels);
    ++r.in_flight;
    changed();
}

void ChunkDispatcher::requeue(int worker, RawChunk chunk) {
    const auto rung = static_cast<std::size_t>(chunk.rung);
    RungSchedule& r = state_.rungs[rung];
    SlotState& w = slot(worker);
    r.claimed_frames -= static_cast<std::int64_t>(chunk.frames.size());
    --r.in_flight;
    w.rung = -1;
    w.chunk_work = 0;
    close_session(w);
    r.queued.push_front({chunk.index, chunk.gpu, static_cast<std::int64_t>(chunk.frames.size())});
    chunks_[rung].push_front(std::move(chunk));
    changed();
}

std::optional<RawChunk> ChunkDispatcher::next(int worker, std::stop_token stop) {
    std::unique_lock lock(mu_);
    for (;;) {
        if (stop.stop_requested()) return std::nullopt;
        const std::uint64_t seen = generation_;
        bool nothing_left = false;
        if (auto chunk = take(worker, nothing_left)) return chunk;
        if (nothing_left) return std::nullopt;
        if (!cv_.wait(lock, stop, [&] { return generation_ != seen || failure_.has_value(); })) return std::nullopt;
    }
}

std::optional<RawChunk> ChunkDispatcher::continue_session(int worker, std::stop_token stop) {
    std::unique_lock lock(mu_);
    SlotState& w = slot(worker);
    const auto deadline = std::chrono::steady_clock::now() + session_wait_;
    std::optional<RawChunk> chunk;
    for (;;) {
        if (failure_) throw RunError(*failure_);
        state_.now = now();
        const SessionStep step = session_step(state_, worker);
        if (step.kind == SessionStep::Kind::take) {
            chunk = take_queued(static_cast<std::size_t>(w.session_rung), step.index);
            break;
        }
        w.last_end = step.ended;
        if (step.kind == SessionStep::Kind::end) break;
        // The wait is bounded, so sessions that all wait while the decoder
        // waits for memory they hold cannot stall the run for long.
        const std::uint64_t seen = generation_;
        if (!cv_.wait_until(lock, stop, deadline, [&] { return generation_ != seen || failure_.has_value(); })) {
            w.last_end = stop.stop_requested() ? SessionEnd::stopped : SessionEnd::waited_too_long;
            break;
        }
    }
    if (!chunk) {
        close_session(w);
        changed();  // what it had reserved is free now
        return std::nullopt;
    }
    hand_out(worker, static_cast<std::size_t>(w.session_rung), *chunk);
    ++w.session_next;
    return chunk;
}

SessionEnd ChunkDispatcher::session_ended(int worker) const {
    std::lock_guard lock(mu_);
    return slot(worker).last_end;
}

int ChunkDispatcher::session_chunks(int worker) const {
    std::lock_guard lock(mu_);
    const SlotState& w = slot(worker);
    if (w.session_rung < 0) return 1;
    return std::max(1, w.session_end - w.session_first);
}

void ChunkDispatcher::end_session(int worker) {
    std::lock_guard lock(mu_);
    close_session(slot(worker));
    changed();
}

std::optional<RawChunk> ChunkDispatcher::try_next(int worker, bool& finished, std::uint64_t& observed) {
    std::lock_guard lock(mu_);
    observed = generation_;
    return take(worker, finished);
}

bool ChunkDispatcher::wait_for_change(int worker, std::uint64_t observed, std::stop_token stop) {
    std::unique_lock lock(mu_);
    state_.now = now();
    if (!cv_.wait(lock, stop, [&] {
            return generation_ != observed || failure_.has_value() || ready_for_an_idle_other(state_, worker);
        }))
        return false;
    if (failure_) throw RunError(*failure_);
    return true;
}

long ChunkDispatcher::final_backlog() const {
    std::lock_guard lock(mu_);
    return engine::final_backlog(state_);
}

bool ChunkDispatcher::all_finished() const {
    std::lock_guard lock(mu_);
    return engine::all_finished(state_);
}

bool ChunkDispatcher::all_handed_out(int rung) const {
    std::lock_guard lock(mu_);
    const RungSchedule& r = state_.rungs.at(static_cast<std::size_t>(rung));
    return r.closed && r.queued.empty();
}

void ChunkDispatcher::done(int worker, const RawChunk& chunk, double seconds) {
    std::lock_guard lock(mu_);
    SlotState& w = slot(worker);
    RungSchedule& r = state_.rungs[static_cast<std::size_t>(chunk.rung)];
    const double rate =
        static_cast<double>(chunk.frames.size()) * static_cast<double>(r.plan.pixels) / std::max(seconds, 1e-6);
    w.speed = w.speed > 0 ? 0.7 * w.speed + 0.3 * rate : rate;
    w.chunk_work = 0;
    --r.in_flight;
    changed();
}

void ChunkDispatcher::refused(int worker, RawChunk chunk) {
    std::lock_guard lock(mu_);
    state_.rungs[static_cast<std::size_t>(chunk.rung)].refused_kinds.insert(slot(worker).encoder);
    requeue(worker, std::move(chunk));
    check_orphans();
}

void ChunkDispatcher::failed(int worker, RawChunk chunk, const std::string& error, bool counts_as_try) {
    std::lock_guard lock(mu_);
    auto& errors = chunk_errors_[{chunk.rung, chunk.index}];
    if (counts_as_try) errors.push_back(error);
    state_.failed_on[{chunk.rung, chunk.index}].insert(worker);
    if (static_cast<int>(errors.size()) >= state_.limits.max_tries) {
        failure_ = fmt::format("rung {}: chunk {} failed on all {} tries: {}",
                               state_.rungs[static_cast<std::size_t>(chunk.rung)].plan.name, chunk.index,
                               errors.size(), fmt::join(errors, "; "));
        cv_.notify_all();
        throw RunError(*failure_);
    }
    requeue(worker, std::move(chunk));
}

void ChunkDispatcher::retire(int worker) {
    std::lock_guard lock(mu_);
    SlotState& w = slot(worker);
    w.retired = true;
    w.rung = -1;
    close_session(w);
    check_orphans();
    changed();
    if (failure_) throw RunError(*failure_);
}

std::string ChunkDispatcher::rung_of(int worker) const {
    std::lock_guard lock(mu_);
    const int r = slot(worker).rung;
    return r >= 0 ? state_.rungs[static_cast<std::size_t>(r)].plan.name : "";
}

}  // namespace ladder::engine
