#pragma once
// An encoded chunk decoded again with libdav1d (libaom's decoder where the
// FFmpeg build has no libdav1d): what every CPU chunk must pass before it
// is accepted (an encoder's thread race can write a frame no decoder reads,
// docs/hardening.md "SVT-AV1 2.x and threads"), what `ladder validate
// --decode` does to every video segment, and what --quality compares.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "av/handles.hpp"
#include "engine/base/chunk.hpp"

namespace ladder::engine {

// Which AV1 decoder: libdav1d, fast, for the chunks of a run; libaom's, the
// reference decoder and 3x slower, where the answer matters more than the
// time (`validate --decode`): libdav1d 1.0 decodes some damaged frames that
// libaom and libdav1d 1.5 refuse. Each falls back on the other.
enum class Av1Decoder { fast, strict };

// Every decoded frame, in order, to `take`; throws UndecodableChunk ("does
// not decode: libdav1d refused a packet: ...") when a packet does not
// decode. `threads`: the decoder's (1 or more).
void decode_chunk(const EncodedChunk& chunk, int threads, const std::function<void(av::FramePtr)>& take,
                  Av1Decoder decoder = Av1Decoder::fast);

// Why the chunk does not decode, without an error, to exactly `frames`
// frames ("does not decode: ...", "decodes to 8 frames, not 9"); nullopt
// when it does.
std::optional<std::string> why_undecodable(const EncodedChunk& chunk, std::size_t frames, int threads,
                                           Av1Decoder decoder = Av1Decoder::fast);

}  // namespace ladder::engine
