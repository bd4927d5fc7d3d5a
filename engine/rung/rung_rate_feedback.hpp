#pragma once
// Keeps a rung's average bit rate on target across encoder sessions. Each
// session (a run of consecutive chunks in one encoder) is a one-pass VBR
// encode with no history, and its response (bits made / bits asked) has two
// parts that differ: its first chunk, where the encoder starts cold, and the
// chunks after it. SVT-AV1 1.4 makes 25-40% less than asked in a session's
// first chunk on most content while the chunks after it land near the
// request; on noise it is the other way round (docs/benchmarks.md). So a
// single response learnt from sessions of one length misjudges sessions of
// another (a 1-chunk session's response applied to a 12-chunk session
// overshot by 68%). Per encoder kind on the rung, both parts are measured
// and the next session asks for target / (its expected response at its
// planned length).
//
// Sessions over harder chunks get a larger share of the rate. The bits the
// rung has left (its target over its length, less what finished sessions
// made and what those under way were asked for) are spread over the seconds
// nobody started yet by complexity: a session asks for its weight times
// what is left over the seconds left, each at its weight (the mean weight
// of everything from the session's first chunk on; both from
// ChunkComplexity). Weights are relative to the chunks measured so far, and
// the first sessions start before most are, so only weights taken when each
// session starts keep the shares adding up to the rung (a first wave taken
// at 1, then easy chunks at 0.6 of the source's mean, left animation's 360p
// 10% under). How far that may move a session from its weight's share of
// the target: up to 1.5x for a shortfall; down to 0.85x for an overshoot,
// and only where the sessions get complexity shares (asking later sessions
// for less starved their hard chunks and cost more picture than the rate
// was worth). The rung's average, not each session, is what the ladder
// promises. The sessions that start together at the beginning of a run
// cannot be corrected this way; the longer the source is compared with the
// number of slots, the less they weigh.
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "gpu/encoder_traits.hpp"

namespace ladder::engine {

class RungRateFeedback {
public:
    // total_seconds: the rung's length (0: unknown, nothing is made up).
    explicit RungRateFeedback(int target_kbps, double total_seconds = 0)
        : target_kbps_(target_kbps), total_seconds_(total_seconds) {}

    // Bits made / bits asked, in a session's first chunk and in the rest.
    struct Response {
        double first = 1.0;
        double rest = 1.0;
        // Of a session of `chunks` equal chunks.
        double of_session(int chunks) const;
    };
    // What an encoder made in part of a session.
    struct Made {
        double bits = 0;
        double seconds = 0;
    };
    struct Request {
        int kbps = 0;           // what to ask the encoder for
        std::uint64_t id = 0;   // for finish() / abandon()
    };
    // A session of `chunks` planned chunks (`seconds` of video) is about to
    // start on `encoder`.
    // prior: the response to assume for each part this rung has not
    // measured for the encoder yet (while a whole rung's first sessions
    // start before any of them ends).
    // weight: how hard the session's chunks are (ChunkComplexity; 1: an
    // even share); left_weight: the same for everything from its first
    // chunk on. Once a session of the rung has finished, a session asks
    // for weight / left_weight of the rate the seconds left must make,
    // within the make-up's bounds; before that, for weight x the target.
    // max_kbps: the most the encoder takes (its record's limits); a session is
    // never asked for more, and is expected to make only that much.
    Request begin(const std::string& encoder, int chunks, double seconds, const Response& prior,
                  double weight = 1.0, double left_weight = 1.0,
                  int max_kbps = std::numeric_limits<int>::max());
    // Sessions get complexity shares, which keep their hard chunks fed when
    // the seconds left are asked for less: an overshoot is made up too.
    void make_up_overshoots();
    // The session ended: what its first chunk and the chunks after it made.
    void finish(const Request& request, const Made& first, const Made& rest);
    // The attempt failed: it makes nothing.
    void abandon(const Request& request);

    // The rung's measured parts for this encoder; a part not measured yet
    // is nullopt.
    struct Measured {
        std::optional<double> first;
        std::optional<double> rest;
    };
    Measured measured(const std::string& encoder) const;
    // The response begin() would use with this prior.
    Response response(const std::string& encoder, const Response& prior) const;

private:
    struct Sums {
        double asked_bits = 0;
        double made_bits = 0;
        std::optional<double> response() const;
    };
    struct Parts {
        Sums first;
        Sums rest;
    };
    Response response_locked(const std::string& encoder, const Response& prior) const;
    // What the seconds nobody started yet (of this mean weight) must make,
    // over their weight's share of the target, for the rung to land on it.
    double make_up_locked(double left_weight) const;

    int target_kbps_;
    double total_seconds_;
    mutable std::mutex mu_;  // the rung's rate feedback's own: guards what follows; a leaf
    double made_bits_ = 0;     // by finished sessions
    double done_seconds_ = 0;  // of video, of finished sessions
    bool overshoots_made_up_ = false;
    std::map<std::string, Parts> parts_;
    struct Pending {
        std::string encoder;
        int kbps = 0;
        double seconds = 0;        // planned
        double expected_bits = 0;  // what it should make, as asked
    };
    std::map<std::uint64_t, Pending> pending_;
    std::uint64_t next_id_ = 1;
};

// What an encoder makes of a request before the run has measured it: its
// record's typical response (gpu/encoder_traits.*).
RungRateFeedback::Response typical_response(const gpu::EncoderTraits& encoder);

}  // namespace ladder::engine
