#pragma once
// Room engine/encode/backend/: an encoder session: the EncoderBackend
// interface, libavcodec's AV1 encoders behind it, packets split back into chunks.
// May include: base, media, plan.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// One interface over libavcodec's AV1 encoders: libsvtav1 and libaom-av1 on
// the CPU, av1_nvenc (NVIDIA) and av1_qsv (Intel) on the slot's GPU, run in
// ladder's process (engine/encode/backend/libavcodec_encoder.*) or in an encoder process
// (engine/encode/process/process_encoder.*). An encoder session takes consecutive chunks of
// one rung (send ... finish) with a key frame carrying a sequence header
// forced at every chunk start, so each chunk still decodes on its own and
// every segment starts at the same frame in every rung; encode() is a
// session of one chunk.
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "av/hdr_metadata.hpp"
#include "engine/base/chunk.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "gpu/encoder_traits.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::engine {

struct EncoderSettings {
    int width = 0;
    int height = 0;
    AVPixelFormat pix_fmt = AV_PIX_FMT_YUV420P;
    AVRational frame_rate{25, 1};
    int bitrate_kbps = 0;
    int maxrate_kbps = 0;
    int bufsize_kbps = 0;
    int preset = -1;  // -1: the encoder's ladder default (SVT-AV1 8, libaom cpu-used 6)
    // >= 0: constant quality at this CRF instead of bitrate_kbps (SVT-AV1
    // only: the complexity analysis, and rungs with a "crf").
    int crf = -1;
    AVColorPrimaries color_primaries = AVCOL_PRI_UNSPECIFIED;
    AVColorTransferCharacteristic color_trc = AVCOL_TRC_UNSPECIFIED;
    AVColorSpace colorspace = AVCOL_SPC_UNSPECIFIED;
    AVColorRange color_range = AVCOL_RANGE_UNSPECIFIED;
    // The source's HDR10 metadata: SVT-AV1 writes it as metadata OBUs from
    // its parameters; for the other encoders ladder inserts the OBUs.
    av::HdrMetadata hdr;
};

// Where CPU encoders run (engine/encode/process/process_encoder.hpp).
enum class EncoderIsolation { in_process, process };

class EncoderBackend {
public:
    virtual ~EncoderBackend() = default;
    // Encodes the chunk's frames; packets come back with pts counted in
    // frames from the start of the rung. Throws RunError on failure.
    virtual EncodedChunk encode(const RawChunk& chunk, std::stop_token stop) = 0;
    // A session: sends the chunk's frames to the session's encoder (opened
    // by the first send) and returns the chunks of this session that are
    // complete now, in order — usually the ones before it, since encoders
    // hold frames back for look-ahead. The chunk must follow the last one
    // sent, except on a GPU encoder whose chunks have all come back: that
    // one takes any chunk of the rung next (a forced key frame starts it).
    // The caller keeps a chunk's frames until it came back.
    // Default: each chunk by a fresh encoder (encode()).
    virtual std::vector<EncodedChunk> send(const RawChunk& chunk, std::stop_token stop) {
        std::vector<EncodedChunk> out;
        out.push_back(encode(chunk, stop));
        return out;
    }
    // Ends the session: flushes the encoder and returns the chunks left.
    virtual std::vector<EncodedChunk> finish(std::stop_token stop) {
        (void)stop;
        return {};
    }
    // Opens an encoder with these settings and closes it again: the
    // pre-flight check that a device can encode at all. Throws RunError.
    virtual void probe() = 0;
    // Opens the session before its first chunk comes, where the encoder can
    // from its settings alone (ladder's NVENC client): its start is then off
    // the run's critical path. False where it cannot (it opens with the
    // first chunk, as before). Throws when the open fails.
    virtual bool open_ahead() { return false; }

protected:
    // encode() for a backend with real sessions: a session of one chunk.
    EncodedChunk encode_as_session(const RawChunk& chunk, std::stop_token stop, const std::string& label);
};

// The encoder in this process.
std::unique_ptr<EncoderBackend> make_encoder_backend(const gpu::EncoderSlot& slot, const EncoderSettings& settings);

// How a worker gets an encoder for a chunk; tests substitute their own.
using EncoderFactory =
    std::function<std::unique_ptr<EncoderBackend>(const gpu::EncoderSlot&, const EncoderSettings&)>;

// What an encoder's library accepts when ladder opens it: its record's
// limits (gpu/encoder_traits.hpp, README "Encoder limits").
using gpu::EncoderLimits;
using gpu::EncoderTraits;

// FFmpeg hands every encoder its buffer in an int of bits.
inline constexpr int kMaxBufferKbits = 2'147'483;

// Why the encoder cannot make this rung (empty when it can): a size, target
// rate, max rate or buffer outside its limits, named with the limit.
// Checked before the run: SVT-AV1 refuses what is outside them at open (and
// closing a half-opened encoder can hang inside the library).
std::string encoder_rung_problem(const EncoderTraits& encoder, const RungSpec& rung);

// What a session's encoder is asked for, in bits per second and bits: the
// session's rate (its share of the rung's), its max rate (the rung's, else
// 1.5x the session's; 0 for an encoder that takes none) and its buffer (the
// rung's, else 2x the session's rate), each within the encoder's limits, so
// that a share that differs from the rung's rate never leaves them.
struct RateControl {
    std::int64_t bit_rate = 0;
    std::int64_t max_rate = 0;
    int buffer_bits = 0;
};
RateControl rate_control(const EncoderTraits& encoder, const EncoderSettings& settings);

// The preset a session's encoder is opened with: the settings' (-1: the
// encoder's default), within the encoder's range.
int session_preset(const EncoderTraits& encoder, const EncoderSettings& settings);

}  // namespace ladder::engine
