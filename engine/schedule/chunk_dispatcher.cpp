#include "engine/schedule/chunk_dispatcher.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <tuple>

#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/base/errors.hpp"

namespace ladder::engine {


ChunkDispatcher::ChunkDispatcher(std::vector<RungPlan> rungs, std::size_t queue_capacity, DispatchMode mode,
                                 int max_tries, int expected_workers, int max_session_chunks,
                                 int min_sessions_per_rung, int max_hw_session_chunks)
    : rungs_(std::move(rungs)),
      mode_(mode),
      max_tries_(std::max(1, max_tries)),
      expected_workers_(static_cast<std::size_t>(std::max(1, expected_workers))),
      max_session_chunks_(std::max(1, max_session_chunks)),
      min_sessions_per_rung_(std::max(1, min_sessions_per_rung)),
      max_hw_session_chunks_(max_hw_session_chunks > 0 ? max_hw_session_chunks : std::max(1, max_session_chunks)),
      clock_([] {
          return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
      }) {
    for (std::size_t i = 0; i < rungs_.size(); ++i)
        queues_.push_back(std::make_unique<SegmentChunkQueue>(queue_capacity, [this] { notify(); }));
    claimed_frames_.assign(rungs_.size(), 0);
    refused_kinds_.resize(rungs_.size());
    in_flight_.assign(rungs_.size(), 0);
}

void ChunkDispatcher::notify() {
    {
        std::lock_guard lock(mu_);
        ++generation_;
    }
    cv_.notify_all();
}

int ChunkDispatcher::add_worker(const std::string& encoder, int pinned_rung, int gpu) {
    std::lock_guard lock(mu_);
    Worker w;
    w.encoder = encoder;
    // The worker's one look-up of its encoder's record (a name ladder does
    // not drive, as tests give: no GPU session rules).
    const gpu::EncoderTraits* traits = gpu::find_encoder_traits(encoder);
    w.controls_session_rate = traits && traits->controls_session_rate;
    w.pinned = pinned_rung;
    w.gpu = gpu;
    workers_.push_back(std::move(w));
    check_orphans();  // the last one to register may complete the picture
    return static_cast<int>(workers_.size()) - 1;
}

void ChunkDispatcher::set_frame_gpus(std::set<int> gpus) {
    std::lock_guard lock(mu_);
    frame_gpus_ = std::move(gpus);
    check_orphans();
}

bool ChunkDispatcher::takes(const Worker& w, const RawChunk& chunk) {
    return chunk.gpu < 0 || chunk.gpu == w.gpu;
}

bool ChunkDispatcher::can_serve(const Worker& w, std::size_t rung) const {
    if (mode_ == DispatchMode::fixed && w.pinned != static_cast<int>(rung)) return false;
    return refused_kinds_[rung].count(w.encoder) == 0;
}

bool ChunkDispatcher::reserved_for_other(int worker, std::size_t rung, int index) const {
    for (std::size_t i = 0; i < workers_.size(); ++i) {
        const Worker& o = workers_[i];
        if (static_cast<int>(i) == worker || o.session_rung != static_cast<int>(rung)) continue;
        if (index >= o.session_next && index < o.session_end) return true;
    }
    return false;
}

int ChunkDispatcher::session_start(int worker, std::size_t rung) const {
    const Worker& w = workers_[static_cast<std::size_t>(worker)];
    return queues_[rung]->first_index(
        [&](const RawChunk& c) { return takes(w, c) && !reserved_for_other(worker, rung, c.index); });
}

std::int64_t ChunkDispatcher::reserved_frames(std::size_t rung) const {
    std::int64_t chunks = 0;
    for (const Worker& w : workers_)
        if (w.session_rung == static_cast<int>(rung)) chunks += std::max(0, w.session_end - w.session_next);
    return chunks * rungs_[rung].chunk_frames;
}

// A session as long as this worker's fair share of everything left, so
// that no session outlasts what the others have to do. What is left counts
// the runs other sessions reserved: they are work those workers still have
// to do, and leaving them out halves the tail again and again (7, 4, 2, 1
// chunks: a session each) where two sessions end together.
int ChunkDispatcher::session_length(const Worker& w, std::size_t rung, std::int64_t first_frames) const {
    if (max_session_chunks_ <= 1) return 1;
    // What is left counts the session's first chunk, just taken.
    double left = static_cast<double>(first_frames) * static_cast<double>(rungs_[rung].pixels);
    for (std::size_t r = 0; r < rungs_.size(); ++r) {
        const std::int64_t frames = std::max<std::int64_t>(rungs_[r].expected_frames - claimed_frames_[r], 0);
        left += static_cast<double>(frames) * static_cast<double>(rungs_[r].pixels);
    }
    int active = 0;
    for (const Worker& w : workers_) active += !w.retired;
    const double share = left / std::max(1, active);
    const double chunk = static_cast<double>(rungs_[rung].pixels) * rungs_[rung].chunk_frames;
    const double chunks = std::ceil(share / std::max(chunk, 1.0));
    return static_cast<int>(std::clamp(chunks, 1.0, static_cast<double>(session_cap(w, rung))));
}

int ChunkDispatcher::session_cap(const Worker& w, std::size_t rung) const {
    const RungPlan& plan = rungs_[rung];
    const std::int64_t chunks = (plan.expected_frames + plan.chunk_frames - 1) / std::max(plan.chunk_frames, 1);
    if (w.controls_session_rate) return static_cast<int>(std::clamp<std::int64_t>(chunks, 1, max_hw_session_chunks_));
    const auto per_session = static_cast<int>((chunks + min_sessions_per_rung_ - 1) / min_sessions_per_rung_);
    return std::clamp(per_session, 1, max_session_chunks_);
}

void ChunkDispatcher::close_session(Worker& w) {
    w.session_rung = -1;
    w.session_first = w.session_next = w.session_end = 0;
}

bool ChunkDispatcher::ready_for(int worker, std::size_t rung) const {
    const int front = session_start(worker, rung);
    if (front < 0) return false;
    // A chunk that failed on this slot goes to another slot that can take
    // it, when there is one.
    auto it = failed_on_.find({static_cast<int>(rung), front});
    if (it == failed_on_.end() || it->second.count(worker) == 0) return true;
    const int gpu = workers_[static_cast<std::size_t>(worker)].gpu;
    for (std::size_t i = 0; i < workers_.size(); ++i)
        if (!workers_[i].retired && can_serve(workers_[i], rung) && it->second.count(static_cast<int>(i)) == 0 &&
            (frame_gpus_.empty() || workers_[i].gpu == gpu))
            return false;
    return true;
}

// Finished: nothing queued, nothing more coming, nothing in flight that a
// failure could bring back.
bool ChunkDispatcher::rung_finished(std::size_t rung) const {
    return in_flight_[rung] == 0 && queues_[rung]->drained();
}

double ChunkDispatcher::remaining_time(std::size_t rung) const {
    const std::int64_t frames = std::max<std::int64_t>(
        rungs_[rung].expected_frames - claimed_frames_[rung], static_cast<std::int64_t>(queues_[rung]->size()));
    const double work = static_cast<double>(frames) * static_cast<double>(rungs_[rung].pixels);
    double throughput = 0;
    double known = 0;
    int unmeasured = 0;
    for (const auto& w : workers_) {
        if (w.retired) continue;
        if (w.speed > 0) known += w.speed;
        if (w.rung != static_cast<int>(rung)) continue;
        if (w.speed > 0)
            throughput += w.speed;
        else
            ++unmeasured;
    }
    // A worker not measured yet counts as an average one.
    if (unmeasured > 0) {
        int measured = 0;
        for (const auto& w : workers_) measured += (!w.retired && w.speed > 0);
        throughput += unmeasured * (measured ? known / measured : 1.0);
    }
    if (throughput > 0) return work / throughput;
    return work > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

double ChunkDispatcher::in_flight_left(const Worker& w, double fallback_speed) const {
    if (w.chunk_work <= 0) return 0;
    const double speed = w.speed > 0 ? w.speed : fallback_speed;
    return std::max(0.0, w.chunk_work / speed - (clock_() - w.started));
}

bool ChunkDispatcher::would_delay(int worker, std::size_t rung) const {
    // A slot whose one chunk would take longer than the other workers on the
    // rung need for everything that is left — what is unclaimed plus the
    // rest of their chunks in flight — only makes the rung end later.
    // Leaving out the in-flight rest made a free slot idle at the end while
    // the last worker on the rung still had most of a chunk to go.
    const Worker& w = workers_[static_cast<std::size_t>(worker)];
    if (w.speed <= 0) return false;
    double others = 0;
    double others_busy = 0;  // seconds of in-flight work the others still have
    for (std::size_t i = 0; i < workers_.size(); ++i) {
        const Worker& o = workers_[i];
        if (static_cast<int>(i) == worker || o.retired || o.rung != static_cast<int>(rung)) continue;
        if (!frame_gpus_.empty() && o.gpu != w.gpu) continue;  // cannot take this GPU's chunks
        const double speed = o.speed > 0 ? o.speed : w.speed;
        others += speed;
        others_busy += in_flight_left(o, w.speed) * speed;  // as pixel-frames
    }
    if (others <= 0) return false;
    const double chunk_work = static_cast<double>(rungs_[rung].pixels) * rungs_[rung].chunk_frames;
    const std::int64_t frames = std::max<std::int64_t>(rungs_[rung].expected_frames - claimed_frames_[rung],
                                                       static_cast<std::int64_t>(queues_[rung]->size()));
    // With chunks kept on their GPUs, this GPU's part of the rung: the
    // GPUs decode equal time ranges.
    const double gpus = frame_gpus_.empty() ? 1.0 : static_cast<double>(frame_gpus_.size());
    const double left = static_cast<double>(frames) * static_cast<double>(rungs_[rung].pixels) / gpus;
    return chunk_work / w.speed > (left + others_busy) / others;
}

bool ChunkDispatcher::all_queued() const {
    for (const auto& q : queues_)
        if (!q->closed()) return false;
    return true;
}

bool ChunkDispatcher::other_work_ready(int worker, std::size_t rung) const {
    const Worker& w = workers_[static_cast<std::size_t>(worker)];
    for (std::size_t r = 0; r < queues_.size(); ++r)
        if (r != rung && can_serve(w, r) && ready_for(worker, r)) return true;
    return false;
}

bool ChunkDispatcher::worked_on_gpu(int worker, std::size_t rung) const {
    const int gpu = workers_[static_cast<std::size_t>(worker)].gpu;
    for (std::size_t i = 0; i < workers_.size(); ++i) {
        const Worker& o = workers_[i];
        if (static_cast<int>(i) != worker && !o.retired && o.gpu == gpu && o.rung == static_cast<int>(rung))
            return true;
    }
    return false;
}

int ChunkDispatcher::pick_rung(int worker) const {
    const Worker& w = workers_[static_cast<std::size_t>(worker)];
    // Once the source is fully decoded every chunk left is known: the
    // biggest chunks go first (longest processing time first), so the run
    // ends on small chunks that fill the gaps instead of on a few big ones
    // that leave most slots idle. Before that, chunks arrive in source
    // order and the rung with the most remaining time gets the free slot.
    const bool longest_first = all_queued();
    int best = -1;
    // (nobody on it, the worker's GPU encoder is open on it, time), compared
    // in that order: a GPU encoder kept open on a rung saves opening
    // another (a fifth of a second, under FFmpeg's codec-open lock, while
    // every other slot waits to open theirs). With chunks kept on their
    // GPUs, "nobody" means nobody on this GPU: its slots spread over the
    // rungs first, so each takes as few rungs (encoders) as it can.
    std::tuple<bool, bool, double> best_key{false, false, -1};
    for (std::size_t r = 0; r < queues_.size(); ++r) {
        if (!can_serve(w, r) || !ready_for(worker, r)) continue;
        if (would_delay(worker, r)) continue;
        std::tuple<bool, bool, double> key{false, w.encoders_on.count(static_cast<int>(r)) > 0, 0};
        if (longest_first) {
            std::get<2>(key) = static_cast<double>(rungs_[r].pixels) * rungs_[r].chunk_frames;
        } else {
            // A rung nobody works on has infinite remaining time: it goes
            // first, the biggest of them first.
            std::get<2>(key) = remaining_time(r);
            if (std::isinf(std::get<2>(key)) || (!frame_gpus_.empty() && !worked_on_gpu(worker, r)))
                key = {true, std::get<1>(key), static_cast<double>(rungs_[r].pixels)};
        }
        if (key > best_key) {
            best = static_cast<int>(r);
            best_key = key;
        }
    }
    return best;
}

void ChunkDispatcher::check_orphans() {
    if (failure_ || workers_.size() < expected_workers_) return;
    for (std::size_t r = 0; r < queues_.size(); ++r) {
        if (rung_finished(r)) continue;
        bool served = false;
        for (const auto& w : workers_) served = served || (!w.retired && can_serve(w, r));
        // Chunks in a GPU's memory need a worker on that GPU.
        for (const int gpu : frame_gpus_) {
            bool on_gpu = false;
            for (const auto& w : workers_) on_gpu = on_gpu || (!w.retired && w.gpu == gpu && can_serve(w, r));
            if (served && !on_gpu) {
                failure_ = fmt::format(
                    "rung {}: no encoder slot left on GPU {}, whose memory holds its chunks (every NVENC session "
                    "there was quarantined); its remaining chunks cannot be written: --decode cpu lets any slot "
                    "take any chunk",
                    rungs_[r].name, gpu);
                break;
            }
        }
        if (failure_) break;
        if (!served) {
            std::vector<std::string> refused(refused_kinds_[r].begin(), refused_kinds_[r].end());
            failure_ = fmt::format(
                "rung {}: no encoder slot left can encode it ({}); its remaining chunks cannot be written",
                rungs_[r].name,
                refused.empty() ? std::string("every slot that could was quarantined")
                                : fmt::format("its contract refused {}; the others were quarantined or finished",
                                              fmt::join(refused, ", ")));
        }
    }
    if (failure_) cv_.notify_all();
}

std::optional<RawChunk> ChunkDispatcher::take(int worker, bool& nothing_left) {
    nothing_left = false;
    if (failure_) throw RunError(*failure_);
    Worker& w = workers_[static_cast<std::size_t>(worker)];
    close_session(w);  // a new one starts here
    // Stay on the current rung while it has a chunk ready (until every
    // chunk is queued: then longest first decides).
    const int rung = w.rung >= 0 && !all_queued() && can_serve(w, static_cast<std::size_t>(w.rung)) &&
                             ready_for(worker, static_cast<std::size_t>(w.rung)) &&
                             !would_delay(worker, static_cast<std::size_t>(w.rung))
                         ? w.rung
                         : pick_rung(worker);
    if (rung >= 0) {
        // Only the dispatcher takes from a queue or puts back at its front,
        // always under mu_: the chunk ready_for() saw is still there, and
        // it leaves the queue and counts as in flight in one step.
        const auto r = static_cast<std::size_t>(rung);
        const int index = session_start(worker, r);
        const auto mine = [&w](const RawChunk& c) { return takes(w, c); };
        if (auto chunk = index >= 0 ? queues_[r]->try_take(index, mine) : std::nullopt) {
            hand_out(worker, r, *chunk);
            w.session_rung = rung;
            w.session_first = index;
            w.session_next = index + 1;
            // A chunk that failed before goes alone: a session that fails
            // costs all its chunks, and an innocent neighbour must not use
            // up its tries next to the chunk that crashes the encoder.
            const bool failed_before = failed_on_.count({rung, index}) != 0;
            w.session_end =
                index + (failed_before ? 1 : session_length(w, r, static_cast<std::int64_t>(chunk->frames.size())));
            return chunk;
        }
    }
    if (auto stolen = steal(worker)) return stolen;
    w.rung = -1;  // helpers leave a rung once it has nothing ready
    bool anything_left = false;
    for (std::size_t r = 0; r < queues_.size(); ++r)
        anything_left = anything_left || (!rung_finished(r) && can_serve(w, r));
    nothing_left = !anything_left;
    return std::nullopt;
}

// At the end of the work (everything queued) a worker with nothing to do
// takes the back half of the longest run another session reserved, as a
// session of its own: a reserved run must not leave slots idle while one
// session works through it, and halving it (not one chunk at a time) keeps
// the sessions few.
std::optional<RawChunk> ChunkDispatcher::steal(int worker) {
    if (!all_queued()) return std::nullopt;
    Worker& w = workers_[static_cast<std::size_t>(worker)];
    Worker* victim = nullptr;
    for (std::size_t i = 0; i < workers_.size(); ++i) {
        Worker& o = workers_[i];
        if (static_cast<int>(i) == worker || o.session_rung < 0 || o.session_end - o.session_next < 2) continue;
        if (!can_serve(w, static_cast<std::size_t>(o.session_rung))) continue;
        if (!frame_gpus_.empty() && o.gpu != w.gpu) continue;  // its run is in another GPU's memory
        if (!victim || o.session_end - o.session_next > victim->session_end - victim->session_next) victim = &o;
    }
    if (!victim) return std::nullopt;
    const auto rung = static_cast<std::size_t>(victim->session_rung);
    const int end = victim->session_end;
    const int index = end - (end - victim->session_next) / 2;
    auto chunk = queues_[rung]->try_take(index, [&w](const RawChunk& c) { return takes(w, c); });
    if (!chunk) return std::nullopt;
    victim->session_end = index;
    hand_out(worker, rung, *chunk);
    w.session_rung = static_cast<int>(rung);
    w.session_first = index;
    w.session_next = index + 1;
    w.session_end = end;
    return chunk;
}

void ChunkDispatcher::hand_out(int worker, std::size_t rung, const RawChunk& chunk) {
    Worker& w = workers_[static_cast<std::size_t>(worker)];
    w.rung = static_cast<int>(rung);
    if (w.controls_session_rate) w.encoders_on.insert(static_cast<int>(rung));
    claimed_frames_[rung] += static_cast<std::int64_t>(chunk.frames.size());
    w.started = clock_();
    w.chunk_work = static_cast<double>(chunk.frames.size()) * static_cast<double>(rungs_[rung].pixels);
    ++in_flight_[rung];
    // What is left, and who is busy, changed: waiting workers decide again.
    ++generation_;
    cv_.notify_all();
}

void ChunkDispatcher::requeue(int worker, RawChunk chunk) {
    const auto rung = static_cast<std::size_t>(chunk.rung);
    Worker& w = workers_[static_cast<std::size_t>(worker)];
    claimed_frames_[rung] -= static_cast<std::int64_t>(chunk.frames.size());
    --in_flight_[rung];
    w.rung = -1;
    w.chunk_work = 0;
    close_session(w);
    queues_[rung]->push_front(std::move(chunk));
    ++generation_;
    cv_.notify_all();
}

void ChunkDispatcher::after_handover(std::unique_lock<std::mutex>& lock) const {
    if (!handover_probe_) return;
    lock.unlock();
    handover_probe_();
}

std::optional<RawChunk> ChunkDispatcher::next(int worker, std::stop_token stop) {
    std::unique_lock lock(mu_);
    for (;;) {
        if (stop.stop_requested()) return std::nullopt;
        const std::uint64_t seen = generation_;
        bool nothing_left = false;
        if (auto chunk = take(worker, nothing_left)) {
            after_handover(lock);
            return chunk;
        }
        if (nothing_left) return std::nullopt;
        if (!cv_.wait(lock, stop, [&] { return generation_ != seen || failure_.has_value(); })) return std::nullopt;
    }
}

std::optional<RawChunk> ChunkDispatcher::continue_session(int worker, std::stop_token stop) {
    std::unique_lock lock(mu_);
    Worker& w = workers_[static_cast<std::size_t>(worker)];
    const auto deadline = std::chrono::steady_clock::now() + session_wait_;
    std::optional<RawChunk> chunk;
    for (;;) {
        if (failure_) throw RunError(*failure_);
        if (w.session_rung < 0 || w.session_next >= w.session_end ||
            !can_serve(w, static_cast<std::size_t>(w.session_rung)) ||
            failed_on_.count({w.session_rung, w.session_next}) != 0 ||
            reserved_for_other(worker, static_cast<std::size_t>(w.session_rung), w.session_next))
            break;
        SegmentChunkQueue& queue = *queues_[static_cast<std::size_t>(w.session_rung)];
        chunk = queue.try_take(w.session_next, [&w](const RawChunk& c) { return takes(w, c); });
        // Queued but in another GPU's memory, or nothing more coming: over.
        if (chunk || queue.holds(w.session_next) || queue.closed()) break;
        // Still being decoded: while the worker has nothing else to do, a
        // short wait keeps the session (a new one costs an encoder open and,
        // for software encoders, a part of the rung's rate feedback). With
        // another rung's chunk ready the worker goes to help there instead.
        // The wait is bounded, so sessions that all wait while the decoder
        // waits for memory they hold cannot stall the run for long.
        if (other_work_ready(worker, static_cast<std::size_t>(w.session_rung))) break;
        if (producers_blocked_ && producers_blocked_()) break;
        const std::uint64_t seen = generation_;
        if (!cv_.wait_until(lock, stop, deadline, [&] { return generation_ != seen || failure_.has_value(); }))
            break;
    }
    if (!chunk) {
        close_session(w);
        ++generation_;  // what it had reserved is free now
        cv_.notify_all();
        return std::nullopt;
    }
    hand_out(worker, static_cast<std::size_t>(w.session_rung), *chunk);
    ++w.session_next;
    after_handover(lock);
    return chunk;
}

int ChunkDispatcher::session_chunks(int worker) const {
    std::lock_guard lock(mu_);
    const Worker& w = workers_[static_cast<std::size_t>(worker)];
    if (w.session_rung < 0) return 1;
    return std::max(1, w.session_end - w.session_first);
}

void ChunkDispatcher::end_session(int worker) {
    std::lock_guard lock(mu_);
    close_session(workers_[static_cast<std::size_t>(worker)]);
    ++generation_;
    cv_.notify_all();
}

std::optional<RawChunk> ChunkDispatcher::try_next(int worker, bool& finished, std::uint64_t& observed) {
    std::unique_lock lock(mu_);
    observed = generation_;
    auto chunk = take(worker, finished);
    if (chunk) after_handover(lock);
    return chunk;
}

bool ChunkDispatcher::wait_for_change(std::uint64_t observed, std::stop_token stop) {
    std::unique_lock lock(mu_);
    if (!cv_.wait(lock, stop, [&] { return generation_ != observed || failure_.has_value(); })) return false;
    if (failure_) throw RunError(*failure_);
    return true;
}

long ChunkDispatcher::final_backlog() const {
    std::lock_guard lock(mu_);
    long backlog = 0;
    for (std::size_t r = 0; r < queues_.size(); ++r) {
        if (!queues_[r]->closed()) return -1;
        // A chunk reserved for a session is that session's work, not work
        // another session could start on.
        const long reserved = static_cast<long>(reserved_frames(r) / std::max(1, rungs_[r].chunk_frames));
        backlog += std::max(0L, static_cast<long>(queues_[r]->size()) - reserved);
    }
    return backlog;
}

bool ChunkDispatcher::all_finished() const {
    std::lock_guard lock(mu_);
    for (std::size_t r = 0; r < queues_.size(); ++r)
        if (!rung_finished(r)) return false;
    return true;
}

bool ChunkDispatcher::all_handed_out(int rung) const {
    std::lock_guard lock(mu_);
    return queues_.at(static_cast<std::size_t>(rung))->drained();
}

void ChunkDispatcher::done(int worker, const RawChunk& chunk, double seconds) {
    std::lock_guard lock(mu_);
    Worker& w = workers_[static_cast<std::size_t>(worker)];
    const double rate = static_cast<double>(chunk.frames.size()) *
                        static_cast<double>(rungs_[static_cast<std::size_t>(chunk.rung)].pixels) /
                        std::max(seconds, 1e-6);
    w.speed = w.speed > 0 ? 0.7 * w.speed + 0.3 * rate : rate;
    w.chunk_work = 0;
    --in_flight_[static_cast<std::size_t>(chunk.rung)];
    ++generation_;
    cv_.notify_all();
}

void ChunkDispatcher::refused(int worker, RawChunk chunk) {
    std::unique_lock lock(mu_);
    refused_kinds_[static_cast<std::size_t>(chunk.rung)].insert(workers_[static_cast<std::size_t>(worker)].encoder);
    requeue(worker, std::move(chunk));
    check_orphans();
    after_handover(lock);
}

void ChunkDispatcher::failed(int worker, RawChunk chunk, const std::string& error, bool counts_as_try) {
    std::unique_lock lock(mu_);
    auto& errors = chunk_errors_[{chunk.rung, chunk.index}];
    if (counts_as_try) errors.push_back(error);
    failed_on_[{chunk.rung, chunk.index}].insert(worker);
    if (static_cast<int>(errors.size()) >= max_tries_) {
        failure_ = fmt::format("rung {}: chunk {} failed on all {} tries: {}",
                               rungs_[static_cast<std::size_t>(chunk.rung)].name, chunk.index, errors.size(),
                               fmt::join(errors, "; "));
        cv_.notify_all();
        throw RunError(*failure_);
    }
    requeue(worker, std::move(chunk));
    after_handover(lock);
}

void ChunkDispatcher::retire(int worker) {
    std::lock_guard lock(mu_);
    Worker& w = workers_[static_cast<std::size_t>(worker)];
    w.retired = true;
    w.rung = -1;
    close_session(w);
    check_orphans();
    ++generation_;
    cv_.notify_all();
    if (failure_) throw RunError(*failure_);
}

std::string ChunkDispatcher::rung_of(int worker) const {
    std::lock_guard lock(mu_);
    const int r = workers_[static_cast<std::size_t>(worker)].rung;
    return r >= 0 ? rungs_[static_cast<std::size_t>(r)].name : "";
}

}  // namespace ladder::engine
