#pragma once
// Room engine/schedule/: who encodes what, when: the devices planned, the rungs'
// chunk queues, the dispatcher, the memory budgets the queued chunks reserve from.
// May include: base, media, plan, source, encode/backend.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// Decides which chunk each encoder worker encodes next, across the rungs'
// SegmentChunkQueues.
//
// helpers (default): a worker stays on its rung while the rung has a chunk
// ready; when it has none, the worker leaves and joins the rung with the
// largest estimated remaining time (remaining pixel-frames ÷ measured
// throughput of the workers on it) among the rungs with a chunk ready whose
// contract its encoder can meet — a rung nobody works on goes first. Once
// the whole source is queued, the biggest chunks go first instead (longest
// processing time first), so the run ends on small chunks. fixed:
// one worker pinned to each rung (the baseline helpers are measured against).
//
// Encoder sessions: a worker that takes a chunk to start a session reserves
// the chunks after it on the same rung (a run), so it can go on with them in
// the same encoder (continue_session()) while other workers start their own
// sessions past the run. The run's length is the worker's fair share of all
// that is left (every rung, divided among the workers), at most
// max_session_chunks and at most 1/min_sessions_per_rung of the rung (so
// that rate feedback has sessions to correct): long sessions while there
// is plenty of work, single chunks at the end, so the run does not end on
// one long session; once everything is queued, a worker with nothing else
// to do takes the back half of the longest reserved run as a session of its
// own. A session waits a little (session_wait) for a next chunk that is
// still being decoded, while no other rung has a chunk ready for its
// worker; then it ends, and its reservation goes.
// A chunk that failed before is encoded in a session of its own: a failed
// session sends all its chunks back, and the one that breaks the encoder
// must be the one that uses up its tries.
//
// A chunk refused by a rung's codec contract goes back to the front of its
// queue and that encoder kind is never sent to the rung again; a failed chunk
// goes back for another slot until it has been tried max_tries times. When no
// worker left can serve a rung that still has chunks, the run fails naming
// the rung instead of waiting forever.
//
// Who owns what: a queue's chunks are guarded by the queue's own lock, shared
// with the RungScaler that pushes into it (blocking while it is full) and
// closes it. Only the dispatcher takes a chunk out or puts one back at the
// front, always under mu_ and in the same step as the rung's in-flight count,
// so whoever holds mu_ sees every chunk either queued or in flight: a chunk
// changing hands never makes its rung look finished to all_finished() or to
// the orphan check. Lock order: mu_, then a queue's lock; the queues'
// on_change (the producers' pushes and closes) runs under neither.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/schedule/segment_chunk_queue.hpp"

namespace ladder::engine {

enum class DispatchMode { helpers, fixed };

struct RungPlan {
    std::string name;
    std::int64_t pixels = 0;           // width x height
    std::int64_t expected_frames = 0;  // estimate from the source
    int chunk_frames = 1;
};

class ChunkDispatcher {
public:
    // expected_workers: how many workers will register; no rung is declared
    // orphaned before they all have.
    // Hardware encoders (av1_nvenc, av1_qsv) keep their own rate control
    // over a session and give each chunk's packets back as it is encoded
    // (no lag), so their sessions are not cut for the rung's rate feedback
    // (min_sessions_per_rung) and may be up to max_hw_session_chunks long
    // (0: max_session_chunks): fewer session starts under FFmpeg's global
    // codec-open lock.
    ChunkDispatcher(std::vector<RungPlan> rungs, std::size_t queue_capacity, DispatchMode mode, int max_tries,
                    int expected_workers, int max_session_chunks = 1, int min_sessions_per_rung = 1,
                    int max_hw_session_chunks = 0);

    // The producer's side of a rung's queue (push, close); chunks leave it
    // only through next() and try_next(), which count them in flight.
    SegmentChunkQueue& queue(int rung) { return *queues_[static_cast<std::size_t>(rung)]; }
    std::size_t rung_count() const { return queues_.size(); }

    // A worker for one encoder session, registered once it holds its lease;
    // pinned_rung is used in fixed mode. gpu: the CUDA ordinal of an NVENC
    // session's GPU, whose chunks in GPU memory it can take (RawChunk::gpu);
    // -1: it takes chunks in host memory only.
    int add_worker(const std::string& encoder, int pinned_rung, int gpu = -1);
    // The GPUs that hold chunks in their memory (where NVDEC decodes for
    // NVENC on the same GPU); a rung whose chunks on one of them no worker
    // left can take is orphaned, as a rung no worker can serve.
    void set_frame_gpus(std::set<int> gpus);

    // The next chunk for this worker; nullopt when there is nothing left it
    // may do (it should give its lease back), or on stop. Throws RunError
    // when the run cannot complete (a rung nobody left can serve).
    std::optional<RawChunk> next(int worker, std::stop_token stop);

    // The next chunk of the worker's session (the one after the chunk it
    // took last, on the same rung), when it is reserved for this session
    // and queued, or queued within session_wait while the decoder is on it
    // and no other rung has a chunk ready for the worker;
    // otherwise the session is over (nullopt) and what it had reserved is
    // free for others.
    std::optional<RawChunk> continue_session(int worker, std::stop_token stop = {});
    // How long a session waits for its next chunk (default 1 s).
    void set_session_wait(std::chrono::steady_clock::duration wait) { session_wait_ = wait; }
    // Whether the decode is held up for memory (a scaler waits for its
    // budget): then no session waits for its next chunk, since the frames
    // it holds in its encoder may be what the decode waits for. Set before
    // the workers start; producers_blocked() wakes the waiting sessions.
    void set_producers_blocked(std::function<bool()> blocked) { producers_blocked_ = std::move(blocked); }
    void producers_blocked() { notify(); }
    // The worker ends its session early (a failure, a refusal).
    void end_session(int worker);
    // Chunks the worker's session is planned to have, counting those it
    // has taken (at least 1; it may end sooner, see continue_session()).
    int session_chunks(int worker) const;

    // Lease hand-back: the chunk the worker may take right now, without
    // waiting. With none, finished says whether anything is left for it at
    // all (else it should give its lease back and wait_for_change()).
    // observed is the state generation to wait from.
    std::optional<RawChunk> try_next(int worker, bool& finished, std::uint64_t& observed);
    // Blocks until the dispatcher's state moved past observed; false on
    // stop; throws RunError when the run failed.
    bool wait_for_change(std::uint64_t observed, std::stop_token stop);
    // Every rung is finished.
    bool all_finished() const;
    // The rung's chunks have all been handed out (its queue is closed and
    // empty): no new session will start on it unless one fails.
    bool all_handed_out(int rung) const;
    // Chunks waiting in the queues, not reserved for a session, once every
    // queue is closed (the source is fully decoded, nothing more will
    // arrive); -1 while more may come.
    long final_backlog() const;

    // The worker finished a chunk (accepted by the rung): throughput bookkeeping.
    void done(int worker, const RawChunk& chunk, double seconds);
    // The rung's contract refused the chunk: back to the front of its queue;
    // this worker's encoder kind is not sent to that rung again.
    void refused(int worker, RawChunk chunk);
    // The encode failed: back to the front of the queue for another try, or
    // RunError (with every error of that chunk) after max_tries. A failure
    // that is not the chunk's (counts_as_try false: the slot's encoder
    // would not open) sends it to another slot without using up a try.
    void failed(int worker, RawChunk chunk, const std::string& error, bool counts_as_try = true);
    // The worker stops for good (quarantined, or nothing left for it).
    // Throws RunError when that orphans a rung.
    void retire(int worker);

    std::string rung_of(int worker) const;  // for progress: "" when none

    // Seconds on a monotonic clock; tests replace it to make in-flight
    // remainders deterministic.
    void set_clock(std::function<double()> clock) { clock_ = std::move(clock); }
    // Called on the thread that moves a chunk between a queue and a worker
    // (next, try_next, failed, refused) at the first moment after the chunk
    // left one side that the dispatcher's lock is free: tests look at the
    // dispatcher exactly where another worker could.
    void set_handover_probe(std::function<void()> probe) { handover_probe_ = std::move(probe); }

private:
    struct Worker {
        std::string encoder;
        bool controls_session_rate = false;  // its encoder's record says (a GPU encoder)
        int gpu = -1;      // see add_worker()
        int rung = -1;     // current rung, -1 none
        int pinned = -1;
        double speed = 0;  // pixel-frames per second, measured
        bool retired = false;
        double started = 0;     // clock_ when its chunk in flight was handed out
        double chunk_work = 0;  // that chunk's pixel-frames; 0 when idle
        // The open session: chunks [session_next, session_end) of
        // session_rung are reserved for it.
        int session_rung = -1;
        int session_first = 0;  // its first chunk
        int session_next = 0;
        int session_end = 0;
        // Rungs a GPU worker has encoded: where its slot keeps an encoder
        // open (engine/encode/idle_encoders.*), so going back costs no new one.
        std::set<int> encoders_on;
    };

    void notify();
    // take, hand_out and requeue require mu_: a chunk moves between its
    // queue and a worker, and in or out of in_flight_, in one step under it
    // (requeue: back at the front of its queue, for another slot).
    std::optional<RawChunk> take(int worker, bool& nothing_left);
    std::optional<RawChunk> steal(int worker);
    void hand_out(int worker, std::size_t rung, const RawChunk& chunk);
    void requeue(int worker, RawChunk chunk);
    void after_handover(std::unique_lock<std::mutex>& lock) const;  // unlocks when a probe is set
    bool can_serve(const Worker& w, std::size_t rung) const;
    static bool takes(const Worker& w, const RawChunk& chunk);  // the chunk's memory is the worker's
    bool rung_finished(std::size_t rung) const;
    double remaining_time(std::size_t rung) const;
    bool all_queued() const;  // every queue closed: nothing more will arrive
    int pick_rung(int worker) const;
    bool worked_on_gpu(int worker, std::size_t rung) const;  // another worker on this worker's GPU is on it
    bool other_work_ready(int worker, std::size_t rung) const;  // a chunk of another rung it could start now
    bool ready_for(int worker, std::size_t rung) const;
    // The chunk a new session of this worker would start with on the rung:
    // the lowest queued one no other session reserved; -1 when none.
    int session_start(int worker, std::size_t rung) const;
    bool reserved_for_other(int worker, std::size_t rung, int index) const;
    int session_length(const Worker& w, std::size_t rung, std::int64_t first_frames) const;
    int session_cap(const Worker& w, std::size_t rung) const;  // longest session of this worker on the rung
    std::int64_t reserved_frames(std::size_t rung) const;  // reserved, not handed out
    static void close_session(Worker& w);
    bool would_delay(int worker, std::size_t rung) const;
    double in_flight_left(const Worker& w, double fallback_speed) const;
    void check_orphans();  // requires mu_

    std::vector<RungPlan> rungs_;
    std::vector<std::unique_ptr<SegmentChunkQueue>> queues_;
    DispatchMode mode_;
    int max_tries_;
    std::size_t expected_workers_;
    int max_session_chunks_;
    int min_sessions_per_rung_;
    int max_hw_session_chunks_;

    mutable std::mutex mu_;
    std::condition_variable_any cv_;
    std::uint64_t generation_ = 0;
    std::vector<Worker> workers_;
    std::set<int> frame_gpus_;
    std::chrono::steady_clock::duration session_wait_ = std::chrono::seconds(1);
    std::function<bool()> producers_blocked_;
    std::vector<std::int64_t> claimed_frames_;
    std::vector<int> in_flight_;  // chunks handed out and not yet done, refused or failed
    std::vector<std::set<std::string>> refused_kinds_;
    std::map<std::pair<int, int>, std::vector<std::string>> chunk_errors_;
    std::map<std::pair<int, int>, std::set<int>> failed_on_;  // (rung, chunk) -> workers
    std::optional<std::string> failure_;
    std::function<double()> clock_;
    std::function<void()> handover_probe_;
};

}  // namespace ladder::engine
