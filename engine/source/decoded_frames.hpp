#pragma once
// The normalized frames of one pass over the source, kept in host memory so
// that a run's later passes over the same frames hand them on again instead
// of decoding the source again.
//
// Budget rate control passes over the source several times (the search's
// passes, then the writing pass). Decoding is most of a pass's cost on a
// mezzanine source: on the 2-core corpus at preset 10, H.264 decoding was
// half of a budget run's CPU time (perf: libavcodec 50%, SVT-AV1 40%), the
// source decoded six times. The frames are the same every time (the decode
// is deterministic), so the later passes encode exactly what they would
// have encoded from a fresh decode: the ladder does not depend on whether
// the frames were kept.
//
// Kept only while they fit: the caller reserves the source's estimated
// bytes from the run's memory budget first (a source too large for it is
// decoded every pass, as before); a pass that hands on more bytes than
// reserved, a gap or a stop leaves the store incomplete, and it frees what
// it held.
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "av/handles.hpp"
#include "engine/base/memory_budget.hpp"
#include "engine/source/decode_lanes.hpp"

namespace ladder::engine {

class DecodedFrames {
public:
    // limit: the bytes reserved for the frames (reservation holds them).
    DecodedFrames(BudgetReservation reservation, std::uint64_t limit);

    // From a decode pump as it hands a frame on (any lane, any order): a
    // new reference to it; frame->pts is its number in the whole source.
    void keep(const AVFrame* frame);
    // After the pass that kept them, with its lanes' totals: complete when
    // every frame from totals.first_frame to totals.end_frame was kept and
    // nothing overflowed; else everything kept is freed.
    void seal(const PumpCounters& totals, bool pass_completed);

    bool complete() const;
    // Whether frames are being kept now (before seal, nothing dropped yet).
    bool keeping() const;
    // In order of their numbers; only once complete().
    std::vector<const AVFrame*> frames() const;
    // What the pass that decoded them counted (packets, frames, damage).
    const PumpCounters& decoded() const { return decoded_; }
    std::uint64_t bytes() const;

    // The bytes of a frame's buffers.
    static std::uint64_t frame_bytes(const AVFrame* frame);

private:
    BudgetReservation reservation_;
    const std::uint64_t limit_;
    mutable std::mutex mu_;  // the store's own: guards what follows; a leaf
    std::map<std::int64_t, av::FramePtr> frames_;
    std::uint64_t bytes_ = 0;
    bool overflowed_ = false;
    bool sealed_ = false;
    PumpCounters decoded_;
};

}  // namespace ladder::engine
