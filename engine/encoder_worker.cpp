#include "engine/encoder_worker.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/errors.hpp"

namespace ladder::engine {

EncoderWorker::EncoderWorker(WorkerSetup setup, int pinned_rung) : s_(std::move(setup)), pinned_rung_(pinned_rung) {}

double EncoderWorker::since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - s_.job_start).count();
}

void EncoderWorker::encode_one(const gpu::EncoderSlot& slot, RawChunk raw, std::stop_token stop,
                               int& failures_in_a_row) {
    RungRuntime& r = (*s_.rungs)[static_cast<std::size_t>(raw.rung)];
    s_.progress->chunk_started(raw.rung, r.rung.name, raw.index, slot.label);
    const double started = since_start();
    EncodedChunk chunk;
    try {
        chunk = s_.factory(slot, r.settings)->encode(raw, stop);
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        ++slot_.failures;
        ++failures_in_a_row;
        retries_.push_back(RetryRecord{r.rung.name, raw.index, slot.label, e.what()});
        s_.progress->chunk_failed(r.rung.name, raw.index, slot.label, e.what());
        s_.dispatcher->failed(id_, std::move(raw), fmt::format("{}: {}", slot.label, e.what()));
        return;
    }
    failures_in_a_row = 0;
    chunk.start_seconds = started;
    chunk.end_seconds = since_start();

    auto verdict = r.invariant->check(chunk);
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
        s_.dispatcher->refused(id_, std::move(raw));
        return;
    }
    const double seconds = chunk.end_seconds - chunk.start_seconds;
    if (s_.journal) s_.journal->record(chunk, r.rung.name);
    s_.dispatcher->done(id_, raw, seconds);
    ++slot_.chunks;
    slot_.busy_seconds += seconds;

    ChunkDone done;
    done.rung = chunk.rung;
    done.rung_name = r.rung.name;
    done.chunk = chunk.index;
    done.frames = chunk.frame_count;
    done.bytes = chunk.bytes;
    done.slot = chunk.slot_label;
    done.encode_seconds = seconds;
    s_.progress->chunk_done(done);
    r.finalizer->deliver(std::move(chunk));
}

void EncoderWorker::run(std::stop_token stop) {
    auto lease = s_.pool->claim(gpu::ClaimPriority::primary, stop);
    if (!lease) return;
    const gpu::EncoderSlot& slot = lease->slot();
    slot_.label = slot.label;
    slot_.encoder = slot.encoder;
    // Registered once the slot (and so the encoder kind) is known.
    id_ = s_.dispatcher->add_worker(slot.encoder, pinned_rung_);
    int failures_in_a_row = 0;
    while (auto raw = s_.dispatcher->next(id_, stop)) {
        encode_one(slot, std::move(*raw), stop, failures_in_a_row);
        if (failures_in_a_row >= s_.quarantine_after) {
            slot_.quarantined = true;
            s_.progress->note(NoteLevel::warning,
                              fmt::format("{} quarantined for the rest of the run after {} failures in a row (last: "
                                          "{})",
                                          slot.label, failures_in_a_row, retries_.back().error));
            break;
        }
    }
    if (stop.stop_requested()) return;
    // Leaving for good: the dispatcher fails the run if that orphans a rung.
    s_.dispatcher->retire(id_);
}

}  // namespace ladder::engine
