#include "engine/encoder_worker.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "engine/errors.hpp"

namespace ladder::engine {

EncoderWorker::EncoderWorker(WorkerSetup setup, int pinned_rung) : s_(std::move(setup)), pinned_rung_(pinned_rung) {}

double EncoderWorker::since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - s_.job_start).count();
}

bool EncoderWorker::encode_one(const gpu::EncoderSlot& slot, int id, RawChunk raw, std::stop_token stop) {
    SlotReport& stats = (*s_.slot_reports)[static_cast<std::size_t>(slot.id)];
    int& failures_in_a_row = (*s_.failure_runs)[static_cast<std::size_t>(slot.id)];
    stats.label = slot.label;
    stats.encoder = slot.encoder;
    RungRuntime& r = (*s_.rungs)[static_cast<std::size_t>(raw.rung)];
    s_.progress->chunk_started(raw.rung, r.rung.name, raw.index, slot.label);
    const double started = since_start();
    EncodedChunk chunk;
    EncoderSettings settings = r.settings;
    const double chunk_seconds = static_cast<double>(raw.frames.size()) / av_q2d(r.settings.frame_rate);
    RungRateFeedback::Request rate;
    gpu::EncoderSlot encoder_slot = slot;
    struct Encoding {  // counts this chunk among those being encoded
        std::atomic<int>* counter;
        explicit Encoding(std::atomic<int>* c) : counter(c) { if (counter) ++*counter; }
        ~Encoding() { if (counter) --*counter; }
        Encoding(const Encoding&) = delete;
        Encoding& operator=(const Encoding&) = delete;
    } encoding(s_.chunks_encoding);
    if (s_.cores > 0 && s_.chunks_encoding && slot.kind == gpu::DeviceKind::cpu) {
        const long backlog = s_.dispatcher->final_backlog();
        if (backlog >= 0) {
            const long left = backlog + s_.chunks_encoding->load();
            encoder_slot.threads = std::max(slot.threads, static_cast<int>(s_.cores / std::max(1L, left)));
        }
    }
    if (r.rate) {
        // Until this rung has a measurement, the encoder's mean response on
        // the other rungs (geometric) is a better guess than none.
        double log_sum = 0;
        int measured = 0;
        for (const RungRuntime& other : *s_.rungs) {
            if (&other == &r || !other.rate) continue;
            if (auto m = other.rate->measured_response(slot.encoder)) {
                log_sum += std::log(*m);
                ++measured;
            }
        }
        rate = r.rate->begin(slot.encoder, chunk_seconds, measured ? std::exp(log_sum / measured) : 1.0);
        settings.bitrate_kbps = rate.kbps;
    }
    try {
        chunk = s_.factory(encoder_slot, settings)->encode(raw, stop);
        chunk.requested_kbps = settings.bitrate_kbps;
    } catch (const Cancelled&) {
        if (r.rate) r.rate->abandon(rate);
        throw;
    } catch (const std::exception& e) {
        if (r.rate) r.rate->abandon(rate);
        ++stats.failures;
        ++failures_in_a_row;
        const auto* lost = dynamic_cast<const EncoderProcessFailure*>(&e);
        const std::string cause = lost ? lost->cause() : "error";
        retries_.push_back(RetryRecord{r.rung.name, raw.index, slot.label, e.what(), cause});
        s_.progress->chunk_failed(r.rung.name, raw.index, slot.label, e.what(), cause);
        s_.dispatcher->failed(id, std::move(raw), fmt::format("{}: {}", slot.label, e.what()));
        return failures_in_a_row < s_.quarantine_after;
    }
    failures_in_a_row = 0;
    chunk.start_seconds = started;
    chunk.end_seconds = since_start();

    auto verdict = r.invariant->check(chunk);
    if (!verdict.accepted && r.rate) r.rate->abandon(rate);
    if (!verdict.accepted) {
        auto& m = mismatches_[{r.rung.name, slot.encoder}];
        if (m.count++ == 0) {
            m.rung = r.rung.name;
            m.encoder = slot.encoder;
            m.fields = verdict.differences;
            s_.progress->note(NoteLevel::info,
                              fmt::format("rung {}: chunk {} from {} does not splice with the rung's stream ({} "
                                          "differ); it goes back to the queue and {} leaves the rung",
                                          r.rung.name, chunk.index, slot.label, fmt::join(verdict.differences, ", "),
                                          slot.encoder));
        }
        s_.dispatcher->refused(id, std::move(raw));
        return true;
    }
    const double seconds = chunk.end_seconds - chunk.start_seconds;
    if (r.rate) r.rate->finish(rate, 8.0 * static_cast<double>(chunk.bytes));
    if (s_.journal) s_.journal->record(chunk, r.rung.name);
    s_.dispatcher->done(id, raw, seconds);
    ++stats.chunks;
    stats.busy_seconds += seconds;

    ChunkDone done;
    done.rung = chunk.rung;
    done.rung_name = r.rung.name;
    done.chunk = chunk.index;
    done.frames = chunk.frame_count;
    done.bytes = chunk.bytes;
    done.slot = chunk.slot_label;
    done.encode_seconds = seconds;
    s_.progress->chunk_done(done);
    if (r.finalizer) r.finalizer->deliver(std::move(chunk));  // none in a shard: the journal is its output
    return true;
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

void EncoderWorker::run_helpers(std::stop_token stop) {
    auto priority = gpu::ClaimPriority::primary;
    const std::stop_token claim_stop = s_.no_more_work->get_token();
    for (;;) {
        auto lease = s_.pool->claim(priority, claim_stop);
        if (!lease || stop.stop_requested()) return;
        const gpu::EncoderSlot& slot = lease->slot();
        // Dispatcher workers are the pool's slots: the same ids.
        const int id = slot.id;
        std::uint64_t observed = 0;
        for (;;) {
            bool finished = false;
            auto raw = s_.dispatcher->try_next(id, finished, observed);
            if (raw) {
                if (!encode_one(slot, id, std::move(*raw), stop)) {
                    quarantine(slot);
                    lease->retire();
                    s_.dispatcher->retire(id);  // throws when that orphans a rung
                    return;
                }
                if (stop.stop_requested()) return;
                continue;
            }
            if (finished) {
                // Nothing left this slot may ever do: it leaves the pool.
                lease->retire();
                s_.dispatcher->retire(id);
                if (s_.dispatcher->all_finished()) s_.no_more_work->request_stop();
                break;
            }
            // Nothing ready for this slot now: give the lease back, wait for
            // work, then claim again — as a helper, behind any primary.
            lease->release();
            if (!s_.dispatcher->wait_for_change(observed, stop)) return;
            break;
        }
        priority = gpu::ClaimPriority::helper;
    }
}

void EncoderWorker::run_fixed(std::stop_token stop) {
    auto lease = s_.pool->claim(gpu::ClaimPriority::primary, stop);
    if (!lease) return;
    const gpu::EncoderSlot& slot = lease->slot();
    const int id = s_.dispatcher->add_worker(slot.encoder, pinned_rung_);
    while (auto raw = s_.dispatcher->next(id, stop)) {
        if (!encode_one(slot, id, std::move(*raw), stop)) {
            quarantine(slot);
            break;
        }
    }
    if (stop.stop_requested()) return;
    // Leaving for good: the dispatcher fails the run if that orphans a rung.
    s_.dispatcher->retire(id);
}

}  // namespace ladder::engine
