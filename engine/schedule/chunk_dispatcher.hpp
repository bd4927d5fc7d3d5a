#pragma once
// Room engine/schedule/: who encodes what, when: the devices planned, the
// scheduling policy (pure) and the dispatcher (the board that owns the rungs'
// chunk queues), the memory budgets the queued chunks reserve from.
// May include: base, media, plan, source, encode/backend.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// The board of the scheduling: ChunkDispatcher owns the rungs' queues of
// raw chunks and the in-flight set, all in one ScheduleState under one lock
// (mu_) with one condition (cv_), and hands chunks to the encoder workers as
// the policy (engine/schedule/schedule_policy.hpp: pick_next, session_step,
// orphan_failure) decides; the policy holds no lock and reads no clock, the
// board reads the clock into the state before it asks.
//
// A session waits a little (session_wait) for a next chunk that is still
// being decoded, while no other rung has a chunk ready for its worker and no
// producer waits for memory; then it ends, and its reservation goes.
// A chunk refused by a rung's codec contract goes back to the front of its
// queue and that encoder kind is never sent to the rung again; a failed chunk
// goes back for another slot until it has been tried max_tries times. When no
// worker left can serve a rung that still has chunks, the run fails naming
// the rung instead of waiting forever.
//
// Who owns what: the producers (RungScalers) push and close through
// queue(rung), an inlet into the board: a push waits under mu_ while the
// rung holds queue_capacity chunks. A chunk leaves its queue, or comes back
// to its front, only together with the rung's in-flight count, under mu_:
// whoever holds mu_ sees every chunk either queued or in flight, so a chunk
// changing hands never makes its rung look finished to all_finished() or to
// the orphan check. Producers that wait for memory say so through the inlet
// (waiting_for_memory), before and after they wait in a MemoryBudget.
//
// Lock order: mu_ (this board's) is a leaf. Nothing under it takes another
// lock: no queue lock (the board holds its queues), no memory budget (a
// producer reserves memory before it pushes, holding no board lock; no
// budget calls the board), no callback. A chunk's BudgetReservation goes
// back (MemoryBudget::mu_, also a leaf) where the chunk is freed, never
// under mu_: the board moves chunks in and out, it frees none while it
// holds mu_ (those left at the end go with the board).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/schedule/schedule_policy.hpp"
#include "engine/schedule/segment_chunk_queue.hpp"

namespace ladder::engine {

class ChunkDispatcher {
public:
    // expected_workers: how many workers will register; no rung is declared
    // orphaned before they all have.
    // Hardware encoders (av1_nvenc, av1_qsv) keep their own rate control
    // over a session and give each chunk's packets back as it is encoded
    // (no lag), so their sessions are not cut for the rung's rate feedback
    // (min_sessions_per_rung) and may be up to max_hw_session_chunks long
    // (0: max_session_chunks): fewer session starts under FFmpeg's global
    // codec-open lock. session_wait: how long a session waits for its next
    // chunk (continue_session).
    ChunkDispatcher(std::vector<RungPlan> rungs, std::size_t queue_capacity, DispatchMode mode, int max_tries,
                    int expected_workers, int max_session_chunks = 1, int min_sessions_per_rung = 1,
                    int max_hw_session_chunks = 0,
                    std::chrono::steady_clock::duration session_wait = std::chrono::seconds(1));
    ~ChunkDispatcher();
    ChunkDispatcher(const ChunkDispatcher&) = delete;
    ChunkDispatcher& operator=(const ChunkDispatcher&) = delete;

    // The producer's side of a rung's queue (push, close, waiting_for_memory);
    // chunks leave it only through next(), try_next() and continue_session(),
    // which count them in flight.
    ChunkInlet& queue(int rung);
    // Chunks waiting in all the queues.
    std::size_t queued_chunks() const;

    // A worker for one encoder session, registered once it holds its lease;
    // pinned_rung is used in fixed mode. gpu: the CUDA ordinal of an NVENC
    // session's GPU, whose chunks in GPU memory it can take (RawChunk::gpu);
    // -1: it takes chunks in host memory only.
    int add_worker(const std::string& encoder, int pinned_rung, int gpu = -1);
    // A GPU worker about to open its encoder before any chunk is ready for
    // it (while the decoder starts): the rung to open it for (the policy's
    // opening_rung), which counts as the worker's until it takes a chunk and
    // as a rung where it keeps an encoder; -1 none. not_opened_ahead(): the
    // open failed, the worker is on no rung.
    int open_ahead(int worker);
    void not_opened_ahead(int worker);
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
    // The worker ends its session early (a failure, a refusal).
    void end_session(int worker);
    // Why continue_session() last said the worker's session was over.
    SessionEnd session_ended(int worker) const;
    // Chunks the worker's session is planned to have, counting those it
    // has taken (at least 1; it may end sooner, see continue_session()).
    int session_chunks(int worker) const;

    // Lease hand-back: the chunk the worker may take right now, without
    // waiting. With none, finished says whether anything is left for it at
    // all (else it should give its lease back and wait_for_change()).
    // observed is the state generation to wait from.
    std::optional<RawChunk> try_next(int worker, bool& finished, std::uint64_t& observed);
    // Blocks until the dispatcher's state moved past observed; false on
    // stop; throws RunError when the run failed. Returns at once while a
    // chunk is ready for an idle slot other than the worker's (the worker
    // gave its slot back: its thread claims again, and the pool hands out
    // the slots given back longest ago first).
    bool wait_for_change(int worker, std::uint64_t observed, std::stop_token stop);
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

private:
    class Inlet;
    // The producers' side, through queue(rung).
    bool push(std::size_t rung, RawChunk chunk, std::stop_token stop);
    void close(std::size_t rung);
    void producer_waiting(bool waiting);

    // All below require mu_.
    void changed();  // what is left, or who is busy, changed: waiting workers decide again
    std::optional<RawChunk> take(int worker, bool& nothing_left);
    RawChunk take_queued(std::size_t rung, int index);  // out of its queue
    void hand_out(int worker, std::size_t rung, const RawChunk& chunk);
    void requeue(int worker, RawChunk chunk);  // back at the front of its queue, for another slot
    void check_orphans();
    static void close_session(SlotState& w);
    SlotState& slot(int worker) { return state_.workers[static_cast<std::size_t>(worker)]; }
    const SlotState& slot(int worker) const { return state_.workers[static_cast<std::size_t>(worker)]; }
    static double now();  // seconds on the monotonic clock

    std::size_t capacity_;
    std::vector<std::unique_ptr<Inlet>> inlets_;
    std::chrono::steady_clock::duration session_wait_;

    // Owned by the board, guarded by mu_: the policy's view of the queues,
    // the in-flight set and the slots, the queued chunks themselves (per
    // rung, in the order of state_.rungs[r].queued), and the run's failure.
    mutable std::mutex mu_;  // the board's own: guards what follows; a leaf
    std::condition_variable_any cv_;  // the one condition: generation_ moved, or failure_
    std::uint64_t generation_ = 0;
    ScheduleState state_;
    std::vector<std::deque<RawChunk>> chunks_;
    std::map<std::pair<int, int>, std::vector<std::string>> chunk_errors_;
    std::optional<std::string> failure_;
};

}  // namespace ladder::engine
