#include "engine/encode/encoder_worker.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/check/chunk_decode.hpp"
#include "engine/base/errors.hpp"

namespace ladder::engine {

EncoderWorker::EncoderWorker(WorkerSetup setup, int pinned_rung) : s_(std::move(setup)), pinned_rung_(pinned_rung) {}

double EncoderWorker::since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - s_.job_start).count();
}

namespace {
// Counts the sessions being encoded (tail threading reads it).
class Encoding {
public:
    explicit Encoding(std::atomic<int>* c) : counter_(c) {
        if (counter_) ++*counter_;
    }
    ~Encoding() {
        if (counter_) --*counter_;
    }
    Encoding(const Encoding&) = delete;
    Encoding& operator=(const Encoding&) = delete;

private:
    std::atomic<int>* counter_;
};
// One chunk per session: an encoder that keeps none (libaom), and a rung at
// a constant quality: without rate control a longer session buys nothing,
// and a chunk's bytes would move with the chunks before it in its session,
// which timing decides; alone, a CRF chunk comes out the same on any
// machine (README, "crf").
bool one_chunk_per_session(const gpu::EncoderSlot& slot, const EncoderSettings& settings) {
    return !slot.traits().keeps_sessions || settings.crf >= 0;
}

}  // namespace

gpu::EncoderSlot EncoderWorker::session_slot(const gpu::EncoderSlot& slot) const {
    gpu::EncoderSlot out = slot;
    if (s_.cores > 0 && s_.chunks_encoding && slot.traits().threaded) {
        const long backlog = s_.dispatcher->final_backlog();
        if (backlog >= 0) {
            const long left = backlog + s_.chunks_encoding->load();
            out.threads = std::max(slot.threads, static_cast<int>(s_.cores / std::max(1L, left)));
        }
    }
    return out;
}

RungRateFeedback::Request EncoderWorker::begin_rate(Rung& r, const gpu::EncoderSlot& slot, int chunks,
                                                    double seconds, double weight, double left_weight) const {
    // Until this rung has measured a part of the response, the encoder's
    // mean (geometric) on the other rungs is a better guess, and before any
    // rung has, what the encoder is known to do.
    RungRateFeedback::Response prior = typical_response(slot.traits());
    double log_first = 0, log_rest = 0;
    int firsts = 0, rests = 0;
    for (const auto& other : *s_.rungs) {
        if (other.get() == &r || !other->rate()) continue;
        const auto m = other->rate()->measured(slot.encoder);
        if (m.first) log_first += std::log(*m.first), ++firsts;
        if (m.rest) log_rest += std::log(*m.rest), ++rests;
    }
    if (firsts) prior.first = std::exp(log_first / firsts);
    if (rests) prior.rest = std::exp(log_rest / rests);
    return r.rate()->begin(slot.encoder, chunks, seconds, prior, weight, left_weight,
                         slot.traits().limits.max_kbps);
}

// The session's chunks as they come back, in order; false once the rung's
// contract refused one (then it and every chunk still in the session went
// back to the queue).
bool EncoderWorker::accept(Session& session, std::vector<EncodedChunk> done) {
    Rung& r = *session.rung;
    const gpu::EncoderSlot& slot = *session.slot;
    for (EncodedChunk& chunk : done) {
        if (session.pending.empty() || session.pending.front().raw.index != chunk.index)
            throw RunError(fmt::format("{}: chunk {} came back out of order", slot.label, chunk.index));
        SessionChunk p = std::move(session.pending.front());
        session.pending.pop_front();
        chunk.requested_kbps = session.record.requested_kbps;
        chunk.session = session.record.id;
        chunk.slot_label = slot.label;  // the encoder may have been opened by another slot of its GPU
        chunk.frames_gpu = p.raw.gpu;
        chunk.ends_rung = p.raw.ends_rung;
        const double now = since_start();
        chunk.start_seconds = std::max(p.sent_at, session.last_done);
        chunk.end_seconds = now;
        const int index = chunk.index;
        auto checked = r.check(std::move(chunk));
        if (!checked.accepted) {
            auto& m = mismatches_[{r.name(), slot.encoder}];
            if (m.count++ == 0) {
                m.rung = r.name();
                m.encoder = slot.encoder;
                m.fields = checked.differences;
                s_.progress->note(NoteLevel::info,
                                  fmt::format("rung {}: chunk {} from {} does not splice with the rung's stream ({} "
                                              "differ); it goes back to the queue and {} leaves the rung",
                                              r.name(), index, slot.label, fmt::join(checked.differences, ", "),
                                              slot.encoder));
            }
            s_.dispatcher->refused(session.worker, std::move(p.raw));
            while (!session.pending.empty()) {
                s_.dispatcher->refused(session.worker, std::move(session.pending.front().raw));
                session.pending.pop_front();
            }
            return false;
        }
        EncodedChunk& accepted = checked.accepted->chunk();
        const double seconds = accepted.end_seconds - accepted.start_seconds;
        session.last_done = now;
        RungRateFeedback::Made& made = session.record.chunks.empty() ? session.first : session.rest;
        made.bits += 8.0 * static_cast<double>(accepted.bytes);
        made.seconds += static_cast<double>(accepted.frame_count) / av_q2d(r.settings().frame_rate);
        session.record.chunks.push_back(index);
        session.record.bytes += accepted.bytes;
        // Before the raw frames go (done() below): they are the reference.
        if (s_.quality != QualityMetric::none) accepted.quality = measure_chunk_quality(accepted, p.raw, s_.quality);
        // Journaled, reported, to the rung's writer (none in a shard: the journal is its output).
        r.deliver(std::move(*checked.accepted), ChunkOrigin::encoded, seconds);
        s_.dispatcher->done(session.worker, p.raw, seconds);
        SlotReport& stats = (*s_.slot_reports)[static_cast<std::size_t>(slot.id)];
        ++stats.chunks;
        stats.busy_seconds += seconds;
    }
    return true;
}

// The session's record, its encoder settings and rate request, and the GPU
// encoder this slot left open on the rung, if any.
void EncoderWorker::open_session(Session& session, const gpu::EncoderSlot& slot, int id, const RawChunk& first) {
    Rung& r = *session.rung;
    session.worker = id;
    session.slot = &slot;
    session.record.id = s_.session_ids ? (*s_.session_ids)++ : 0;
    session.record.rung = r.name();
    session.record.slot = slot.label;
    session.record.encoder = slot.encoder;
    session.record.threads = session.encoder_slot.threads;
    session.record.start_seconds = since_start();
    session.last_done = session.record.start_seconds;
    session.settings = r.settings_for_chunk(first.index);
    // A GPU encoder this slot left open on the rung goes on at this chunk,
    // with the rate it was opened with: its own rate control runs across
    // its sessions.
    if (s_.idle_encoders) {
        if (auto kept = s_.idle_encoders->take(slot, first.rung)) {
            session.backend = std::move(kept->backend);
            session.settings.bitrate_kbps = kept->kbps;
            session.record.opened_encoder = false;
            session.record.opened_ahead = kept->opened_ahead;
        }
    }
    close_idle_encoders(slot, false);  // after taking this rung's: its last chunk may be `first`
    // Under the driver's cap (GeForce) a slot holds one session at most.
    if (!session.backend && slot.session_capped) close_idle_encoders(slot, true);
    if (r.rate() && !session.backend) {
        const int chunks = one_chunk_per_session(slot, session.settings) ? 1 : s_.dispatcher->session_chunks(id);
        if (r.complexity()) {
            session.record.measured_chunks = r.complexity()->measured();
            session.record.weight = r.complexity()->weight(first.index, chunks);
            session.record.left_weight = r.complexity()->weight_from(first.index);
        }
        session.rate = begin_rate(r, slot, chunks,
                                  chunks * static_cast<double>(first.frames.size()) / av_q2d(r.settings().frame_rate),
                                  session.record.weight, session.record.left_weight);
        session.settings.bitrate_kbps = session.rate.kbps;
    }
    session.record.requested_kbps = session.settings.bitrate_kbps;
}

// What the session made goes to the rung's rate feedback (an encoder this
// session did not open was asked nothing).
void EncoderWorker::end_rate(Session& session) {
    Rung& r = *session.rung;
    if (!r.rate() || !session.record.opened_encoder) return;
    if (session.first.seconds > 0)
        r.rate()->finish(session.rate, session.first, session.rest);
    else
        r.rate()->abandon(session.rate);
}

// Only what the encoder does is an encoder failure: false, with the
// session's failure and its cause. A chunk that cannot be written (a full
// disk) or a run that failed elsewhere ends the run (it throws on).
template <typename Step>
bool EncoderWorker::by_encoder(Session& session, Step&& step) {
    try {
        step();
        return true;
    } catch (const Cancelled&) {
        end_rate(session);
        throw;
    } catch (const std::exception& e) {
        session.failure = e.what();
        if (const auto* lost = dynamic_cast<const EncoderProcessFailure*>(&e)) session.cause = lost->cause();
        if (dynamic_cast<const UndecodableChunk*>(&e)) session.cause = "undecodable";
        if (dynamic_cast<const EncoderOpenRefused*>(&e)) {
            session.cause = "open refused";
            session.open_refused = true;
        }
        return false;
    }
}

// A verified CPU encoder's chunks are decoded before they are accepted:
// SVT-AV1 2.x's thread race can write a frame no decoder reads
// (docs/hardening.md), and such a chunk fails its session like a crash, so
// it is encoded again. GPU chunks are not decoded: the worker's thread
// would hold its GPU slot back, and no GPU encoder has been seen to write one.
void EncoderWorker::expect_decodable(const Session& session, std::vector<EncodedChunk>& back) const {
    if (session.slot->traits().gpu() || !s_.verified_encoders.count(session.slot->encoder)) return;
    for (EncodedChunk& chunk : back) {
        const auto sent = std::find_if(session.pending.begin(), session.pending.end(),
                                       [&](const SessionChunk& p) { return p.raw.index == chunk.index; });
        if (sent == session.pending.end()) continue;  // accept() says it came back out of order
        if (const auto why = why_undecodable(chunk, sent->raw.frames.size(), session.encoder_slot.threads))
            throw UndecodableChunk(fmt::format("chunk {} from {} {}", chunk.index, session.slot->label, *why));
    }
}

// The session's chunks, from `first` on while the dispatcher has the next
// one for it, each accepted as it comes back; then the encoder kept for the
// slot's next session on the rung or flushed. False when the encoder failed.
bool EncoderWorker::encode_chunks(Session& session, RawChunk first, std::stop_token stop) {
    const gpu::EncoderSlot& slot = *session.slot;
    const int id = session.worker;
    const int rung = first.rung;
    std::vector<EncodedChunk> back;
    bool ok = session.backend ||
              by_encoder(session, [&] { session.backend = s_.factory(session.encoder_slot, session.settings); });
    std::optional<RawChunk> next = std::move(first);
    while (ok && next) {
        s_.progress->chunk_started(next->rung, session.rung->name(), next->index, slot.label);
        session.pending.push_back(SessionChunk{std::move(*next), since_start()});
        ok = by_encoder(session, [&] {
            back = session.backend->send(session.pending.back().raw, stop);
            expect_decodable(session, back);
        });
        if (!ok) break;
        if (!accept(session, std::move(back))) {
            session.backend.reset();  // refused: the rest of the session went back to the queue
            session.record.ended = session_end_name(SessionEnd::refused);
            break;
        }
        if (one_chunk_per_session(slot, session.settings)) {
            s_.dispatcher->end_session(id);
            session.record.ended = session_end_name(SessionEnd::one_chunk);
            break;
        }
        next = s_.dispatcher->continue_session(id, stop);
        if (!next) session.record.ended = session_end_name(s_.dispatcher->session_ended(id));
    }
    if (!ok) session.record.ended = session_end_name(SessionEnd::failed);
    // Every chunk sent came back: the encoder may wait, open, for the
    // slot's next session on the rung.
    if (ok && session.backend && s_.idle_encoders && session.pending.empty() && !stop.stop_requested()) {
        IdleEncoder idle{std::move(session.backend), session.settings.bitrate_kbps};
        if (!s_.idle_encoders->keep(slot, rung, idle)) session.backend = std::move(idle.backend);
    }
    if (ok && session.backend) {
        ok = by_encoder(session, [&] {
            back = session.backend->finish(stop);
            expect_decodable(session, back);
        });
        if (ok) accept(session, std::move(back));
    }
    return ok;
}

// The encoder failed: every chunk of the session not back yet goes back
// for another slot, and the slot counts the failure.
void EncoderWorker::fail_session(Session& session, SlotReport& stats) {
    const gpu::EncoderSlot& slot = *session.slot;
    s_.dispatcher->end_session(session.worker);
    // The driver may cap sessions open at once without saying so (and
    // GeForce caps count every GPU): no GPU keeps encoders any more.
    if (s_.idle_encoders && slot.traits().gpu()) s_.idle_encoders->stop_keeping();
    ++stats.failures;
    ++(*s_.failure_runs)[static_cast<std::size_t>(slot.id)];
    const std::string& rung = session.rung->name();
    while (!session.pending.empty()) {
        RawChunk raw = std::move(session.pending.front().raw);
        session.pending.pop_front();
        retries_.push_back(RetryRecord{rung, raw.index, slot.label, *session.failure, session.cause});
        s_.progress->chunk_failed(rung, raw.index, slot.label, *session.failure, session.cause);
        s_.dispatcher->failed(session.worker, std::move(raw), fmt::format("{}: {}", slot.label, *session.failure),
                              !session.open_refused);
    }
}

bool EncoderWorker::encode_session(const gpu::EncoderSlot& slot, int id, RawChunk first, std::stop_token stop) {
    SlotReport& stats = (*s_.slot_reports)[static_cast<std::size_t>(slot.id)];
    int& failures_in_a_row = (*s_.failure_runs)[static_cast<std::size_t>(slot.id)];
    stats.label = slot.label;
    stats.encoder = slot.encoder;
    const Encoding encoding(s_.chunks_encoding);
    Session session;
    session.rung = (*s_.rungs)[static_cast<std::size_t>(first.rung)].get();
    session.encoder_slot = session_slot(slot);
    open_session(session, slot, id, first);
    const bool ok = encode_chunks(session, std::move(first), stop);
    end_rate(session);
    if (!ok) fail_session(session, stats);
    else failures_in_a_row = 0;
    finish_record(session);
    return ok || failures_in_a_row < s_.quarantine_after;
}

void EncoderWorker::finish_record(Session& session) {
    session.record.end_seconds = since_start();
    if (!session.record.chunks.empty()) sessions_.push_back(std::move(session.record));
}

void EncoderWorker::close_idle_encoders(const gpu::EncoderSlot& slot, bool everything) {
    if (!s_.idle_encoders) return;
    s_.idle_encoders->close(slot, [this](int rung) { return s_.dispatcher->all_handed_out(rung); }, everything);
}

void EncoderWorker::quarantine(const gpu::EncoderSlot& slot) {
    SlotReport& stats = (*s_.slot_reports)[static_cast<std::size_t>(slot.id)];
    stats.quarantined = true;
    s_.progress->note(NoteLevel::warning,
                      fmt::format("{} quarantined for the rest of the run after {} failures in a row (last: {})",
                                  slot.label, (*s_.failure_runs)[static_cast<std::size_t>(slot.id)],
                                  retries_.back().error));
}

void EncoderWorker::run(std::stop_token stop) {
    if (pinned_rung_ >= 0)
        run_fixed(stop);
    else
        run_helpers(stop);
}

// Before its first chunk is ready a GPU slot opens the session of the rung
// it will most likely take, while the decoder starts: a session start (0.2 s
// for NVENC) off the run's critical path, in parallel on every slot. Then,
// each on a thread of its own, the rest of its GPU's encoders: two for
// every rung (one where the GPU has one slot), so that a slot going to
// another rung later finds one waiting instead of opening it between two
// chunks, also where two slots of the GPU share a rung (as the biggest
// chunks are spread at the end: schedule_policy's steals). A GPU's encoders
// are any of its slots'. The encoders wait in IdleEncoders as one a session
// left open does. An encoder that cannot open ahead (FFmpeg's av1_nvenc
// opens with its first frames) is dropped; a failed open is left to the
// first session on its rung, which opens again and says why.
void EncoderWorker::open_ahead(const gpu::EncoderSlot& slot, int id) {
    if (!s_.idle_encoders || !slot.traits().controls_session_rate || slot.session_capped) return;
    const int rung = s_.dispatcher->open_ahead(id);
    if (rung < 0) return;
    // Counted with what the GPU's other slots opened ahead, on this thread
    // or on theirs: a slot that claims after another slot's openers have
    // started finds its rung's encoders opening and opens none of its own.
    const int per_rung = std::min(2, slots_on_gpu(slot));
    if (!s_.idle_encoders->open_ahead(slot, rung, ahead_opener(slot, rung), false, per_rung) &&
        !s_.idle_encoders->holds(slot, rung)) {
        s_.dispatcher->not_opened_ahead(id);
        return;
    }
    for (int other = 0; other < static_cast<int>(s_.rungs->size()); ++other)
        while (!s_.dispatcher->all_handed_out(other) &&
               s_.idle_encoders->open_ahead(slot, other, ahead_opener(slot, other), true, per_rung)) {
        }
}

int EncoderWorker::slots_on_gpu(const gpu::EncoderSlot& slot) const {
    const auto& slots = s_.pool->slots();
    return static_cast<int>(std::count_if(slots.begin(), slots.end(), [&](const gpu::EncoderSlot& s) {
        return s.kind == slot.kind && s.device_index == slot.device_index && s.encoder == slot.encoder;
    }));
}

// Opens the rung's encoder as its first chunk's session would, without a
// frame; what it needs is copied, for a thread of its own.
IdleEncoders::Opener EncoderWorker::ahead_opener(const gpu::EncoderSlot& slot, int rung) const {
    const EncoderSettings settings = (*s_.rungs)[static_cast<std::size_t>(rung)]->settings_for_chunk(0);
    return [factory = s_.factory, on = session_slot(slot), settings]() -> std::optional<IdleEncoder> {
        IdleEncoder idle{factory(on, settings), settings.bitrate_kbps, true};
        if (!idle.backend->open_ahead()) return std::nullopt;
        return idle;
    };
}

void EncoderWorker::run_helpers(std::stop_token stop) {
    auto priority = gpu::ClaimPriority::primary;
    const std::stop_token claim_stop = s_.no_more_work->get_token();
    bool opened_ahead = false;
    for (;;) {
        auto lease = s_.pool->claim(priority, claim_stop);
        if (!lease || stop.stop_requested()) return;
        const gpu::EncoderSlot& slot = lease->slot();
        // Dispatcher workers are the pool's slots: the same ids.
        const int id = slot.id;
        if (!std::exchange(opened_ahead, true)) open_ahead(slot, id);
        std::uint64_t observed = 0;
        for (;;) {
            bool finished = false;
            auto raw = s_.dispatcher->try_next(id, finished, observed);
            if (raw) {
                if (!encode_session(slot, id, std::move(*raw), stop)) {
                    quarantine(slot);
                    close_idle_encoders(slot, true);
                    lease->retire();
                    s_.dispatcher->retire(id);  // throws when that orphans a rung
                    return;
                }
                if (stop.stop_requested()) return;
                continue;
            }
            if (finished) {
                // Nothing left this slot may ever do: it leaves the pool.
                close_idle_encoders(slot, true);
                lease->retire();
                s_.dispatcher->retire(id);
                if (s_.dispatcher->all_finished()) s_.no_more_work->request_stop();
                break;
            }
            // Nothing ready for this slot now: give the lease back, wait for
            // work, then claim again — as a helper, behind any primary.
            lease->release();
            if (!s_.dispatcher->wait_for_change(id, observed, stop)) return;
            break;
        }
        priority = gpu::ClaimPriority::helper;
    }
}

void EncoderWorker::run_fixed(std::stop_token stop) {
    auto lease = s_.pool->claim(gpu::ClaimPriority::primary, stop);
    if (!lease) return;
    const gpu::EncoderSlot& slot = lease->slot();
    const int id = s_.dispatcher->add_worker(slot.encoder, pinned_rung_, gpu::nvenc_gpu(slot));
    while (auto raw = s_.dispatcher->next(id, stop)) {
        if (!encode_session(slot, id, std::move(*raw), stop)) {
            quarantine(slot);
            break;
        }
    }
    close_idle_encoders(slot, true);
    if (stop.stop_requested()) return;
    // Leaving for good: the dispatcher fails the run if that orphans a rung.
    s_.dispatcher->retire(id);
}

}  // namespace ladder::engine
