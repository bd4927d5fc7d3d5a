#include "engine/schedule/schedule_policy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "engine/encode/backend/encoder_backend.hpp"

namespace ladder::engine {

namespace {

const SlotState& slot(const ScheduleState& s, int worker) { return s.workers[static_cast<std::size_t>(worker)]; }

const QueuedChunk* queued(const RungSchedule& r, int index) {
    for (const QueuedChunk& c : r.queued)
        if (c.index == index) return &c;
    return nullptr;
}

bool reserved_for_other(const ScheduleState& s, int worker, std::size_t rung, int index) {
    for (std::size_t i = 0; i < s.workers.size(); ++i) {
        const SlotState& o = s.workers[i];
        if (static_cast<int>(i) == worker || o.session_rung != static_cast<int>(rung)) continue;
        if (index >= o.session_next && index < o.session_end) return true;
    }
    return false;
}

// The chunk a new session of this worker would start with on the rung: the
// lowest queued one in its memory that no other session reserved; -1 none.
int session_start(const ScheduleState& s, int worker, std::size_t rung) {
    const SlotState& w = slot(s, worker);
    int best = -1;
    for (const QueuedChunk& c : s.rungs[rung].queued)
        if ((best < 0 || c.index < best) && takes(w, c) && !reserved_for_other(s, worker, rung, c.index))
            best = c.index;
    return best;
}

std::int64_t reserved_frames(const ScheduleState& s, std::size_t rung) {
    std::int64_t chunks = 0;
    for (const SlotState& w : s.workers)
        if (w.session_rung == static_cast<int>(rung)) chunks += std::max(0, w.session_end - w.session_next);
    return chunks * s.rungs[rung].plan.chunk_frames;
}

// Longest session of this worker on the rung.
int session_cap(const ScheduleState& s, const SlotState& w, std::size_t rung) {
    const RungPlan& plan = s.rungs[rung].plan;
    const std::int64_t chunks = (plan.expected_frames + plan.chunk_frames - 1) / std::max(plan.chunk_frames, 1);
    if (w.controls_session_rate)
        return static_cast<int>(std::clamp<std::int64_t>(chunks, 1, s.limits.max_hw_session_chunks));
    const auto per_session =
        static_cast<int>((chunks + s.limits.min_sessions_per_rung - 1) / s.limits.min_sessions_per_rung);
    return std::clamp(per_session, 1, s.limits.max_session_chunks);
}

bool ready_for(const ScheduleState& s, int worker, std::size_t rung) {
    const int front = session_start(s, worker, rung);
    if (front < 0) return false;
    // A chunk that failed on this slot goes to another slot that can take
    // it, when there is one.
    auto it = s.failed_on.find({static_cast<int>(rung), front});
    if (it == s.failed_on.end() || it->second.count(worker) == 0) return true;
    const int gpu = slot(s, worker).gpu;
    for (std::size_t i = 0; i < s.workers.size(); ++i)
        if (!s.workers[i].retired && can_serve(s, s.workers[i], rung) && it->second.count(static_cast<int>(i)) == 0 &&
            (s.frame_gpus.empty() || s.workers[i].gpu == gpu))
            return false;
    return true;
}

double in_flight_left(const ScheduleState& s, const SlotState& w, double fallback_speed) {
    if (w.chunk_work <= 0) return 0;
    const double speed = w.speed > 0 ? w.speed : fallback_speed;
    return std::max(0.0, w.chunk_work / speed - (s.now - w.started));
}

// A chunk of another rung the worker could start now.
bool other_work_ready(const ScheduleState& s, int worker, std::size_t rung) {
    const SlotState& w = slot(s, worker);
    for (std::size_t r = 0; r < s.rungs.size(); ++r)
        if (r != rung && can_serve(s, w, r) && ready_for(s, worker, r)) return true;
    return false;
}

// Another worker on this worker's GPU is on the rung.
bool worked_on_gpu(const ScheduleState& s, int worker, std::size_t rung) {
    const int gpu = slot(s, worker).gpu;
    for (std::size_t i = 0; i < s.workers.size(); ++i) {
        const SlotState& o = s.workers[i];
        if (static_cast<int>(i) != worker && !o.retired && o.gpu == gpu && rung_of(o) == static_cast<int>(rung))
            return true;
    }
    return false;
}

std::int64_t frames_left(const ScheduleState& s, std::size_t rung) {
    const RungSchedule& r = s.rungs[rung];
    return std::max<std::int64_t>(r.plan.expected_frames - r.claimed_frames, static_cast<std::int64_t>(r.queued.size()));
}

// At the end of the work (everything queued) a worker with nothing to do
// takes the back half of the longest run another session reserved, as a
// session of its own: a reserved run must not leave slots idle while one
// session works through it, and halving it (not one chunk at a time) keeps
// the sessions few.
std::optional<Pick> steal(const ScheduleState& s, int worker) {
    if (!all_queued(s)) return std::nullopt;
    const SlotState& w = slot(s, worker);
    int victim = -1;
    for (std::size_t i = 0; i < s.workers.size(); ++i) {
        const SlotState& o = s.workers[i];
        if (static_cast<int>(i) == worker || o.session_rung < 0 || o.session_end - o.session_next < 2) continue;
        if (!can_serve(s, w, static_cast<std::size_t>(o.session_rung))) continue;
        if (!s.frame_gpus.empty() && o.gpu != w.gpu) continue;  // its run is in another GPU's memory
        if (victim < 0 || o.session_end - o.session_next > slot(s, victim).session_end - slot(s, victim).session_next)
            victim = static_cast<int>(i);
    }
    if (victim < 0) return std::nullopt;
    const SlotState& v = slot(s, victim);
    const auto rung = static_cast<std::size_t>(v.session_rung);
    const int end = v.session_end;
    const int index = end - (end - v.session_next) / 2;
    const QueuedChunk* chunk = queued(s.rungs[rung], index);
    if (!chunk || !takes(w, *chunk)) return std::nullopt;
    Pick p;
    p.kind = Pick::Kind::steal;
    p.rung = static_cast<int>(rung);
    p.index = index;
    p.session_end = end;
    p.victim = victim;
    return p;
}

// Longest processing time first counts the chunks other sessions reserved
// too: once everything is queued, a GPU worker about to start a session of
// smaller chunks takes the back half of a run of bigger ones instead. Else
// one slot works alone through a run of its rung's biggest chunks at the end
// while the others finish the small ones early and idle (on one stand-in
// GPU the run ended up to a second after the other slot's last chunk).
// GPU workers only: their encoders for every rung are open already
// (IdleEncoders), a session costs them no rate feedback, and the CPU
// encoders' sessions are measured for their rate.
std::optional<Pick> bigger_steal(const ScheduleState& s, int worker, std::size_t start_rung) {
    if (!slot(s, worker).controls_session_rate) return std::nullopt;
    std::optional<Pick> stolen = steal(s, worker);
    if (!stolen) return std::nullopt;
    const auto chunk_work = [&](std::size_t r) {
        return static_cast<double>(s.rungs[r].plan.pixels) * s.rungs[r].plan.chunk_frames;
    };
    if (chunk_work(static_cast<std::size_t>(stolen->rung)) <= chunk_work(start_rung)) return std::nullopt;
    return stolen;
}

}  // namespace

bool takes(const SlotState& w, const QueuedChunk& chunk) { return chunk.gpu < 0 || chunk.gpu == w.gpu; }

bool can_serve(const ScheduleState& s, const SlotState& w, std::size_t rung) {
    if (s.limits.mode == DispatchMode::fixed && w.pinned != static_cast<int>(rung)) return false;
    return s.rungs[rung].refused_kinds.count(w.encoder) == 0;
}

bool rung_finished(const ScheduleState& s, std::size_t rung) {
    const RungSchedule& r = s.rungs[rung];
    return r.in_flight == 0 && r.closed && r.queued.empty();
}

bool all_finished(const ScheduleState& s) {
    for (std::size_t r = 0; r < s.rungs.size(); ++r)
        if (!rung_finished(s, r)) return false;
    return true;
}

bool all_queued(const ScheduleState& s) {
    return std::all_of(s.rungs.begin(), s.rungs.end(), [](const RungSchedule& r) { return r.closed; });
}

long final_backlog(const ScheduleState& s) {
    long backlog = 0;
    for (std::size_t r = 0; r < s.rungs.size(); ++r) {
        if (!s.rungs[r].closed) return -1;
        // A chunk reserved for a session is that session's work, not work
        // another session could start on.
        const long reserved = static_cast<long>(reserved_frames(s, r) / std::max(1, s.rungs[r].plan.chunk_frames));
        backlog += std::max(0L, static_cast<long>(s.rungs[r].queued.size()) - reserved);
    }
    return backlog;
}

// A session as long as this worker's fair share of everything left, so
// that no session outlasts what the others have to do. What is left counts
// the runs other sessions reserved: they are work those workers still have
// to do, and leaving them out halves the tail again and again (7, 4, 2, 1
// chunks: a session each) where two sessions end together.
int session_length(const ScheduleState& s, const SlotState& w, std::size_t rung, std::int64_t first_frames) {
    if (s.limits.max_session_chunks <= 1) return 1;
    // What is left counts the session's first chunk, just taken.
    const RungPlan& plan = s.rungs[rung].plan;
    double left = static_cast<double>(first_frames) * static_cast<double>(plan.pixels);
    for (std::size_t r = 0; r < s.rungs.size(); ++r) {
        const std::int64_t claimed = s.rungs[r].claimed_frames + (r == rung ? first_frames : 0);
        const std::int64_t frames = std::max<std::int64_t>(s.rungs[r].plan.expected_frames - claimed, 0);
        left += static_cast<double>(frames) * static_cast<double>(s.rungs[r].plan.pixels);
    }
    int active = 0;
    for (const SlotState& o : s.workers) active += !o.retired;
    const double share = left / std::max(1, active);
    const double chunk = static_cast<double>(plan.pixels) * plan.chunk_frames;
    const double chunks = std::ceil(share / std::max(chunk, 1.0));
    return static_cast<int>(std::clamp(chunks, 1.0, static_cast<double>(session_cap(s, w, rung))));
}

double remaining_time(const ScheduleState& s, std::size_t rung) {
    const double work = static_cast<double>(frames_left(s, rung)) * static_cast<double>(s.rungs[rung].plan.pixels);
    double throughput = 0;
    double known = 0;
    int unmeasured = 0;
    for (const auto& w : s.workers) {
        if (w.retired) continue;
        if (w.speed > 0) known += w.speed;
        if (rung_of(w) != static_cast<int>(rung)) continue;
        if (w.speed > 0)
            throughput += w.speed;
        else
            ++unmeasured;
    }
    // A worker not measured yet counts as an average one.
    if (unmeasured > 0) {
        int measured = 0;
        for (const auto& w : s.workers) measured += (!w.retired && w.speed > 0);
        throughput += unmeasured * (measured ? known / measured : 1.0);
    }
    if (throughput > 0) return work / throughput;
    return work > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

bool would_delay(const ScheduleState& s, int worker, std::size_t rung) {
    // The worker's one chunk would end later than on a slot of another
    // encoder on the rung that is about to be free: with no more chunks
    // left than such slots, taking it only makes the rung end later.
    // Counting the others' in-flight rest matters: leaving it out made a
    // free slot idle at the end while the last worker on the rung still had
    // most of a chunk to go. Slots of the same encoder are not compared:
    // their measured speeds differ by the content of the chunks they
    // happened to encode (a 2-s chunk of the same rung took 0.4 to 3 s in
    // one pass), so the comparison kept a free slot idle while the rung's
    // densest chunk waited (docs/benchmarks.md, "Kept frames in lanes").
    const SlotState& w = slot(s, worker);
    if (w.speed <= 0) return false;
    const RungPlan& plan = s.rungs[rung].plan;
    const double chunk_work = static_cast<double>(plan.pixels) * plan.chunk_frames;
    const double mine = chunk_work / w.speed;
    std::int64_t sooner = 0;
    for (std::size_t i = 0; i < s.workers.size(); ++i) {
        const SlotState& o = s.workers[i];
        if (static_cast<int>(i) == worker || o.retired || rung_of(o) != static_cast<int>(rung)) continue;
        if (!s.frame_gpus.empty() && o.gpu != w.gpu) continue;  // cannot take this GPU's chunks
        if (o.encoder == w.encoder) continue;
        const double speed = o.speed > 0 ? o.speed : w.speed;
        if (in_flight_left(s, o, w.speed) + chunk_work / speed < mine) ++sooner;
    }
    if (sooner == 0) return false;
    // With chunks kept on their GPUs, this GPU's part of the rung: the
    // GPUs decode equal time ranges.
    const std::int64_t gpus = s.frame_gpus.empty() ? 1 : static_cast<std::int64_t>(s.frame_gpus.size());
    const std::int64_t chunk = std::max(1, plan.chunk_frames);
    const std::int64_t chunks_left = (frames_left(s, rung) / gpus + chunk - 1) / chunk;
    return sooner >= chunks_left;
}

int pick_rung(const ScheduleState& s, int worker) {
    const SlotState& w = slot(s, worker);
    // Once the source is fully decoded every chunk left is known: the
    // biggest chunks go first (longest processing time first), so the run
    // ends on small chunks that fill the gaps instead of on a few big ones
    // that leave most slots idle. Before that, chunks arrive in source
    // order and the rung with the most remaining time gets the free slot.
    const bool longest_first = all_queued(s);
    int best = -1;
    // (nobody on it, the worker's GPU encoder is open on it, time), compared
    // in that order: a GPU encoder kept open on a rung saves opening
    // another (a fifth of a second, under FFmpeg's codec-open lock, while
    // every other slot waits to open theirs). With chunks kept on their
    // GPUs, "nobody" means nobody on this GPU: its slots spread over the
    // rungs first, so each takes as few rungs (encoders) as it can.
    std::tuple<bool, bool, double> best_key{false, false, -1};
    for (std::size_t r = 0; r < s.rungs.size(); ++r) {
        if (!can_serve(s, w, r) || !ready_for(s, worker, r)) continue;
        if (would_delay(s, worker, r)) continue;
        const RungPlan& plan = s.rungs[r].plan;
        std::tuple<bool, bool, double> key{false, w.encoders_on.count(static_cast<int>(r)) > 0, 0};
        if (longest_first) {
            std::get<2>(key) = static_cast<double>(plan.pixels) * plan.chunk_frames;
        } else {
            // A rung nobody works on has infinite remaining time: it goes
            // first, the biggest of them first.
            std::get<2>(key) = remaining_time(s, r);
            if (std::isinf(std::get<2>(key)) || (!s.frame_gpus.empty() && !worked_on_gpu(s, worker, r)))
                key = {true, std::get<1>(key), static_cast<double>(plan.pixels)};
        }
        if (key > best_key) {
            best = static_cast<int>(r);
            best_key = key;
        }
    }
    return best;
}

int opening_rung(const ScheduleState& s, int worker) {
    const SlotState& w = slot(s, worker);
    if (!w.controls_session_rate) return -1;
    // pick_rung's order before every chunk is queued: a rung nobody is on
    // first (on this GPU, with chunks kept on their GPUs), the biggest of
    // them; else the one with the most time left.
    int best = -1;
    std::pair<bool, double> best_key{false, -1};
    for (std::size_t r = 0; r < s.rungs.size(); ++r) {
        if (!can_serve(s, w, r) || rung_finished(s, r)) continue;
        const double left = remaining_time(s, r);
        const bool nobody = std::isinf(left) || (!s.frame_gpus.empty() && !worked_on_gpu(s, worker, r));
        const std::pair<bool, double> key{nobody, nobody ? static_cast<double>(s.rungs[r].plan.pixels) : left};
        if (key > best_key) {
            best = static_cast<int>(r);
            best_key = key;
        }
    }
    return best;
}

int rung_of(const SlotState& w) { return w.rung >= 0 ? w.rung : w.opened_ahead; }

namespace {
// A worker that opened its encoder ahead waits for its rung's first chunk
// while the decoder has not cut one yet, rather than opening another
// encoder on a rung whose chunk came a moment earlier: every rung is cut
// from the same frames. Only for the rung's first chunk: once one was
// handed out (to another worker, whose session may reserve the next ones)
// or is queued, it waits no more; nor while a producer waits for memory
// (what is queued elsewhere may hold it).
bool waits_for_opened_rung(const ScheduleState& s, const SlotState& w) {
    if (w.opened_ahead < 0 || s.producers_waiting > 0 || all_queued(s)) return false;
    const auto r = static_cast<std::size_t>(w.opened_ahead);
    const RungSchedule& rung = s.rungs[r];
    return can_serve(s, w, r) && !rung_finished(s, r) && rung.queued.empty() && rung.claimed_frames == 0 &&
           rung.in_flight == 0;
}
}  // namespace

Pick pick_next(const ScheduleState& s, int worker) {
    const SlotState& w = slot(s, worker);
    // Stay on the current rung while it has a chunk ready (until every
    // chunk is queued: then longest first decides).
    const int on = rung_of(w);
    const auto current = static_cast<std::size_t>(on);
    const bool stay = on >= 0 && !all_queued(s) && can_serve(s, w, current) && ready_for(s, worker, current) &&
                      !would_delay(s, worker, current);
    if (!stay && waits_for_opened_rung(s, w)) return Pick{};  // wait
    const int rung = stay ? on : pick_rung(s, worker);
    if (rung >= 0) {
        const auto r = static_cast<std::size_t>(rung);
        if (auto stolen = bigger_steal(s, worker, r)) return *stolen;
        const int index = session_start(s, worker, r);
        if (const QueuedChunk* chunk = index >= 0 ? queued(s.rungs[r], index) : nullptr) {
            Pick p;
            p.kind = Pick::Kind::start;
            p.rung = rung;
            p.index = index;
            // A chunk that failed before goes alone: a session that fails
            // costs all its chunks, and an innocent neighbour must not use
            // up its tries next to the chunk that crashes the encoder.
            const bool failed_before = s.failed_on.count({rung, index}) != 0;
            p.session_end = index + (failed_before ? 1 : session_length(s, w, r, chunk->frames));
            return p;
        }
    }
    if (auto stolen = steal(s, worker)) return *stolen;
    bool anything_left = false;
    for (std::size_t r = 0; r < s.rungs.size(); ++r) anything_left = anything_left || (!rung_finished(s, r) && can_serve(s, w, r));
    Pick p;
    p.kind = anything_left ? Pick::Kind::wait : Pick::Kind::done;
    return p;
}

bool ready_for_an_idle_other(const ScheduleState& s, int worker) {
    for (std::size_t i = 0; i < s.workers.size(); ++i) {
        const SlotState& o = s.workers[i];
        if (static_cast<int>(i) == worker || o.retired || o.rung >= 0 || o.opened_ahead >= 0 || o.chunk_work > 0 ||
            o.session_rung >= 0)
            continue;
        const Pick::Kind kind = pick_next(s, static_cast<int>(i)).kind;
        if (kind == Pick::Kind::start || kind == Pick::Kind::steal) return true;
    }
    return false;
}

SessionStep session_step(const ScheduleState& s, int worker) {
    const SlotState& w = slot(s, worker);
    SessionStep step;  // end
    if (w.session_rung < 0 || w.session_next >= w.session_end) return step;
    const auto rung = static_cast<std::size_t>(w.session_rung);
    if (!can_serve(s, w, rung) || s.failed_on.count({w.session_rung, w.session_next}) != 0) {
        step.ended = SessionEnd::cannot_serve;
        return step;
    }
    if (reserved_for_other(s, worker, rung, w.session_next)) {
        step.ended = SessionEnd::taken_over;
        return step;
    }
    const RungSchedule& r = s.rungs[rung];
    if (const QueuedChunk* chunk = queued(r, w.session_next)) {
        // Queued but in another GPU's memory: over.
        if (takes(w, *chunk)) {
            step.kind = SessionStep::Kind::take;
            step.index = w.session_next;
        } else {
            step.ended = SessionEnd::other_gpu;
        }
        return step;
    }
    step.ended = SessionEnd::source_done;
    if (r.closed) return step;  // nothing more coming
    // Still being decoded: while the worker has nothing else to do, a short
    // wait keeps the session (a new one costs an encoder open and, for
    // software encoders, a part of the rung's rate feedback). With another
    // rung's chunk ready the worker goes to help there instead; while the
    // decode waits for memory, the frames its encoder holds may be what it
    // waits for.
    step.ended = SessionEnd::decode_behind;
    if (other_work_ready(s, worker, rung) || s.producers_waiting > 0) return step;
    step.kind = SessionStep::Kind::wait;
    return step;
}

const char* session_end_name(SessionEnd end) {
    switch (end) {
        case SessionEnd::run_done: return "run_done";
        case SessionEnd::taken_over: return "taken_over";
        case SessionEnd::cannot_serve: return "cannot_serve";
        case SessionEnd::other_gpu: return "other_gpu";
        case SessionEnd::source_done: return "source_done";
        case SessionEnd::decode_behind: return "decode_behind";
        case SessionEnd::waited_too_long: return "waited_too_long";
        case SessionEnd::one_chunk: return "one_chunk";
        case SessionEnd::failed: return "failed";
        case SessionEnd::refused: return "refused";
        case SessionEnd::stopped: return "stopped";
    }
    return "run_done";
}

std::optional<std::string> orphan_failure(const ScheduleState& s) {
    if (s.workers.size() < s.limits.expected_workers) return std::nullopt;
    for (std::size_t r = 0; r < s.rungs.size(); ++r) {
        if (rung_finished(s, r)) continue;
        bool served = false;
        for (const auto& w : s.workers) served = served || (!w.retired && can_serve(s, w, r));
        // Chunks in a GPU's memory need a worker on that GPU.
        for (const int gpu : s.frame_gpus) {
            bool on_gpu = false;
            for (const auto& w : s.workers) on_gpu = on_gpu || (!w.retired && w.gpu == gpu && can_serve(s, w, r));
            if (served && !on_gpu)
                return fmt::format(
                    "rung {}: no encoder slot left on GPU {}, whose memory holds its chunks (every NVENC session "
                    "there was quarantined); its remaining chunks cannot be written: --decode cpu lets any slot "
                    "take any chunk",
                    s.rungs[r].plan.name, gpu);
        }
        if (!served) {
            const auto& kinds = s.rungs[r].refused_kinds;
            std::vector<std::string> refused(kinds.begin(), kinds.end());
            return fmt::format(
                "rung {}: no encoder slot left can encode it ({}); its remaining chunks cannot be written",
                s.rungs[r].plan.name,
                refused.empty() ? std::string("every slot that could was quarantined")
                                : fmt::format("its contract refused {}; the others were quarantined or finished",
                                              fmt::join(refused, ", ")));
        }
    }
    return std::nullopt;
}

}  // namespace ladder::engine
