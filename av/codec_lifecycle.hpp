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
#include <mutex>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace ladder::av {

// Whether opens and closes of this codec must be serialized.
bool codec_needs_serialized_lifecycle(const AVCodec* codec);

// Held around avcodec_open2 and avcodec_free_context of such a codec; an
// empty (unlocked) lock for every other codec.
std::unique_lock<std::mutex> lock_codec_lifecycle(const AVCodec* codec);

}  // namespace ladder::av
