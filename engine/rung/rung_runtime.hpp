#pragma once
// Room engine/rung/: one rung during a run: its frames from the lanes scaled and
// cut into chunks (joined across lanes), its contract, rate and complexity, its shared state,
// the one way into its writer (chunk_delivery.hpp).
// May include: base, media, check, plan, source, encode/backend,
//   output, schedule.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// Everything the threads of one rung share during a run.
#include <memory>

#include "engine/rung/chunk_complexity.hpp"
#include "engine/source/decode_pump.hpp"
#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/rung/rung_codec_invariant.hpp"
#include "engine/output/rung_finalizer.hpp"
#include "engine/rung/rung_rate_feedback.hpp"

namespace ladder::engine {

struct RungRuntime {
    Rung rung;
    EncoderSettings settings;
    std::unique_ptr<FrameChannel> frames;  // pump -> scaler
    std::unique_ptr<RungCodecInvariant> invariant;
    RungFinalizer* finalizer = nullptr;  // owned by the run's OutputStage; none in a shard
    std::unique_ptr<RungRateFeedback> rate;  // per-chunk bit rate requests
    // Shares the rung's rate among its sessions by chunk complexity; null:
    // even shares (--bit-allocation even, or a rung the analysis does not cover).
    const ChunkComplexity* complexity = nullptr;
};

}  // namespace ladder::engine
