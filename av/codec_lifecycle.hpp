#pragma once
// Opening and closing encoders whose library keeps process-global state it
// writes at open and frees at close without a lock.
//
// SVT-AV1 (1.x and 2.x) reads the CPU topology into a process-global array
// (lp_group in EbEncHandle.c) in every svt_av1_enc_init_handle — malloc,
// memset, realloc while parsing /proc/cpuinfo — and frees it in every
// svt_av1_enc_deinit_handle. Two encoders opening or closing at the same
// time in one process corrupt the heap: found on 16 cores, free() aborting
// inside svt_av1_enc_deinit_handle in about 1 run in 4. Such opens and
// closes are serialized process-wide; encoding itself runs in parallel.
// That does not cover SVT-AV1's other race: every open re-zeroes the
// process-global wedge mask table that encoders already running read
// (docs/hardening.md); only one encoder per process (encoder processes,
// engine/encode/process/process_encoder.hpp) avoids it.
//
// SVT-AV1 1.4 can also block forever in its teardown when an encoder is
// freed with pictures still in flight (a run stopped mid-chunk: seen about
// once in 20 stops, svt_av1_enc_deinit waiting on a semaphore no thread
// will post; sending the end of stream first blocks in the next packet
// read instead). Such an encoder is abandoned, never freed.
#include <mutex>

#include "av/handles.hpp"

namespace ladder::av {

// Whether opens and closes of this codec must be serialized.
bool codec_needs_serialized_lifecycle(const AVCodec* codec);

// Held around avcodec_open2 and avcodec_free_context of such a codec; an
// empty (unlocked) lock for every other codec.
std::unique_lock<std::mutex> lock_codec_lifecycle(const AVCodec* codec);

// For an encoder stopped with frames sent and packets not yet received:
// codecs whose teardown can block then (SVT-AV1) are kept open and idle for
// the rest of the process instead of being freed (the run that stopped is
// ending, so what they hold goes with the process); others are freed.
// Returns whether ctx was abandoned.
bool free_or_abandon_stopped_encoder(CodecContextPtr ctx);

// How many encoders free_or_abandon_stopped_encoder() abandoned (for tests).
int abandoned_encoder_count();

}  // namespace ladder::av
