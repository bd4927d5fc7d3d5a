#pragma once
// The scheduling policy: what a free encoder slot takes next. Plain data in
// (ScheduleState: the rungs' queued chunks, what is in flight and claimed,
// the slots and their sessions, the time now), a decision out. No lock, no
// clock, no callback: ChunkDispatcher (the board) owns a ScheduleState under
// its one lock, asks these functions, and applies what they answer; the unit
// tests build a ScheduleState by hand and ask them without threads.
//
// helpers (default): a worker stays on its rung while the rung has a chunk
// ready; when it has none, the worker leaves and joins the rung with the
// largest estimated remaining time (remaining pixel-frames ÷ measured
// throughput of the workers on it) among the rungs with a chunk ready whose
// contract its encoder can meet — a rung nobody works on goes first. Once
// the whole source is queued, the biggest chunks go first instead (longest
// processing time first), so the run ends on small chunks. A slot whose one
// chunk would end later than on a slot of another encoder about to be free
// stays away (would_delay). fixed: one worker pinned to each rung.
//
// Sessions: a worker that starts one reserves the chunks after its first on
// the same rung (a run): its fair share of all that is left (every rung,
// divided among the workers), at most max_session_chunks and at most
// 1/min_sessions_per_rung of the rung (GPU encoders, which keep their own
// rate over a session, up to max_hw_session_chunks). Once everything is
// queued a worker with nothing else to do takes the back half of the
// longest reserved run (a steal); a GPU worker does so also when that run's
// chunks are bigger than those it would start on (longest first counts the
// reserved chunks). A chunk that failed before goes alone.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ladder::engine {

enum class DispatchMode { helpers, fixed };

struct RungPlan {
    std::string name;
    std::int64_t pixels = 0;           // width x height
    std::int64_t expected_frames = 0;  // estimate from the source
    int chunk_frames = 1;
};

struct ScheduleLimits {
    DispatchMode mode = DispatchMode::helpers;
    int max_tries = 1;
    std::size_t expected_workers = 1;  // no rung is orphaned before they all registered
    int max_session_chunks = 1;
    int min_sessions_per_rung = 1;
    int max_hw_session_chunks = 1;
};

// A chunk waiting in a rung's queue (the board keeps its frames).
struct QueuedChunk {
    int index = 0;
    int gpu = -1;             // RawChunk::gpu: -1 host memory, else the GPU holding it
    std::int64_t frames = 0;  // frames in it
};

struct RungSchedule {
    RungPlan plan;
    std::deque<QueuedChunk> queued;  // in queue order (a requeued chunk at the front)
    bool closed = false;             // nothing more will be pushed
    int in_flight = 0;               // handed out, not yet done, refused or failed
    std::int64_t claimed_frames = 0;  // frames handed out and not handed back
    std::set<std::string> refused_kinds;  // encoder kinds its contract refused
};

// Why a session ended (report.json sessions[].ended, session_end_name()).
enum class SessionEnd {
    run_done,         // its reserved run is encoded (or the rest was taken by a helper)
    taken_over,       // another session holds its next chunk
    cannot_serve,     // the slot may no longer encode the rung, or the chunk failed here before
    other_gpu,        // its next chunk is in another GPU's memory
    source_done,      // the rung has no more chunks
    decode_behind,    // its next chunk was still being decoded and other work was ready
    waited_too_long,  // its next chunk was still being decoded after the bounded wait
    one_chunk,        // its encoder takes one chunk per session
    failed,           // its encoder failed
    refused,          // a chunk came back refused: the rest went back to the queue
    stopped,          // the run was stopped
};
const char* session_end_name(SessionEnd end);

struct SlotState {
    std::string encoder;
    bool controls_session_rate = false;  // its encoder's record says (a GPU encoder): set once, by add_worker
    int gpu = -1;      // CUDA ordinal of an NVENC session's GPU; -1 host chunks only
    int rung = -1;     // current rung, -1 none
    int pinned = -1;   // fixed mode
    double speed = 0;  // pixel-frames per second, measured
    bool retired = false;
    double started = 0;     // ScheduleState::now when its chunk in flight was handed out
    double chunk_work = 0;  // that chunk's pixel-frames; 0 when idle
    // The open session: chunks [session_next, session_end) of session_rung
    // are reserved for it.
    int session_rung = -1;
    int session_first = 0;
    int session_next = 0;
    int session_end = 0;
    SessionEnd last_end = SessionEnd::run_done;  // why its last session ended (continue_session)
    // Rungs a GPU slot has encoded: where it keeps an encoder open.
    std::set<int> encoders_on;
    // The rung whose encoder it opened before its first chunk (open_ahead);
    // counts as its rung until it takes a chunk. -1 none.
    int opened_ahead = -1;
};

struct ScheduleState {
    ScheduleLimits limits;
    std::vector<RungSchedule> rungs;
    std::vector<SlotState> workers;
    std::set<int> frame_gpus;  // GPUs whose memory holds chunks
    std::map<std::pair<int, int>, std::set<int>> failed_on;  // (rung, chunk) -> workers it failed on
    int producers_waiting = 0;  // producers waiting for memory: no session waits for a chunk
    double now = 0;             // seconds on a monotonic clock
};

// What a worker with no session does next (next(), try_next()).
struct Pick {
    enum class Kind {
        start,  // a new session on `rung` from chunk `index`, reserving up to session_end
        steal,  // the back half of `victim`'s run: chunks [index, session_end); victim's run ends at index
        wait,   // nothing it may take now; something may come
        done,   // nothing left it may ever do
    };
    Kind kind = Kind::wait;
    int rung = -1;
    int index = -1;
    int session_end = 0;
    int victim = -1;
};
// The worker's own session must be closed (a new one starts here).
Pick pick_next(const ScheduleState& s, int worker);
// Whether a worker other than this one, idle (no chunk, no rung, no
// session, not retired), would start a chunk now: one this worker leaves to
// another slot (it failed here), or one in another GPU's memory. Helper
// threads are not tied to slots: a thread that gave its slot back must not
// wait for a change while such a chunk waits for a slot no thread holds.
bool ready_for_an_idle_other(const ScheduleState& s, int worker);


// What a worker in a session does next (continue_session()).
struct SessionStep {
    enum class Kind {
        take,  // chunk `index` of the session's rung
        wait,  // its next chunk is still being decoded: wait a little for it
        end,   // the session is over, for `ended`
    };
    Kind kind = Kind::end;
    int index = -1;
    SessionEnd ended = SessionEnd::run_done;
};
SessionStep session_step(const ScheduleState& s, int worker);

// The worker may encode the rung (mode, contract refusals).
bool can_serve(const ScheduleState& s, const SlotState& w, std::size_t rung);
// The chunk's memory is the worker's.
bool takes(const SlotState& w, const QueuedChunk& chunk);
// Nothing queued, nothing more coming, nothing in flight a failure could bring back.
bool rung_finished(const ScheduleState& s, std::size_t rung);
bool all_finished(const ScheduleState& s);
bool all_queued(const ScheduleState& s);  // every queue closed
// Chunks queued and not reserved for a session once every queue is closed;
// -1 while more may come.
long final_backlog(const ScheduleState& s);
// The rung picked for a new session of this worker; -1 none.
int pick_rung(const ScheduleState& s, int worker);
// The rung a GPU worker opens its encoder for before any chunk is ready for
// it: the one pick_rung would give it if every rung had a chunk ready, with
// the other workers on the rungs they work on or opened for; -1 none (not
// a GPU encoder, or no rung it may serve is left).
int opening_rung(const ScheduleState& s, int worker);
// The rung the worker is on: the one it works on, else the one it opened
// its encoder for ahead; -1 none.
int rung_of(const SlotState& w);
// Estimated seconds left on the rung (infinite when nobody works on it).
double remaining_time(const ScheduleState& s, std::size_t rung);
// The worker's one chunk would end later than on a slot of another encoder
// on the rung about to be free, and there are no more chunks left than
// such slots: taking it would make the rung end later.
bool would_delay(const ScheduleState& s, int worker, std::size_t rung);
// Chunks of the session the worker starts on the rung with a chunk of
// first_frames frames (just claimed), at least 1.
int session_length(const ScheduleState& s, const SlotState& w, std::size_t rung, std::int64_t first_frames);
// A rung no worker left can serve (or whose chunks wait on a GPU with no
// worker left): the run's failure message; nullopt when none (or before
// every expected worker registered).
std::optional<std::string> orphan_failure(const ScheduleState& s);

}  // namespace ladder::engine
