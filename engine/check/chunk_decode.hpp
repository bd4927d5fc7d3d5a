#pragma once
// An encoded chunk decoded again with libdav1d (FFmpeg's native AV1 decoder
// where the build has no libdav1d): what every CPU chunk must pass before it
// is accepted (an encoder's thread race can write a frame no decoder reads,
// docs/hardening.md "SVT-AV1 2.x and threads"), and what --quality compares.
#include <cstddef>
#include <functional>
#include <vector>

#include "av/handles.hpp"
#include "engine/base/chunk.hpp"

namespace ladder::engine {

// Every decoded frame, in order, to `take`; throws UndecodableChunk when a
// packet does not decode. `threads`: the decoder's (1 or more).
void decode_chunk(const EncodedChunk& chunk, int threads, const std::function<void(av::FramePtr)>& take);

// Throws UndecodableChunk unless the chunk decodes, without an error, to
// exactly `frames` frames.
void expect_chunk_decodes(const EncodedChunk& chunk, std::size_t frames, int threads);

}  // namespace ladder::engine
