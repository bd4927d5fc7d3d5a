#pragma once
// Test-only fault injection around a real encoder, switched on by one
// environment variable read here and nowhere else:
//
//   LADDER_TEST_FAULTS="<slot label>=<open|mid|probe|crash>[@S][*N];..."
//
// open: the encoder fails to open; mid: it encodes half the chunk, then
// fails; probe: the pre-flight encoder check fails (chunks are unaffected);
// crash: the process gets SIGSEGV, as from a crashing encoder library. @S: the first S chunks on that slot succeed first. *N: only N
// chunks fail, then the slot works again (default: every one).
// Without the variable the production encoder is returned untouched.
#include <memory>

#include "engine/encoder_backend.hpp"

namespace ladder::engine {

std::unique_ptr<EncoderBackend> with_injected_faults(const gpu::EncoderSlot& slot,
                                                     std::unique_ptr<EncoderBackend> real);

}  // namespace ladder::engine
