#pragma once
// Every encoder ladder drives, and what sets each apart, in one table: the
// device it runs on, how its sessions go (chunks per session, key frames,
// rate control), its limits, presets, threads and the names reports use.
// A slot looks its encoder's record up once when it is made
// (EncoderSlot::set_encoder) and carries it; the rest of ladder asks the
// record (slot.traits()), never the encoder's name.
//
// The table is here, below engine/, because the slot (gpu/gpu_pool.hpp)
// carries it; what the traits mean for a session is in
// engine/encode/backend/ (encoder_backend.hpp, session_driver.hpp).
#include <span>
#include <string>
#include <string_view>

#include "gpu/device_kind.hpp"

namespace ladder::gpu {

// What an encoder's library accepts when ladder opens it, as read from its
// sources (README "Encoder limits"): a rung outside them is refused before
// anything is encoded, and a session is never asked for more.
struct EncoderLimits {
    std::string label;  // the name users know it by
    int min_width = 1;
    int min_height = 1;
    int max_width = 65536;
    int max_height = 65536;
    int max_kbps = 0;  // for the target rate, and the max rate where the encoder takes one
    bool takes_max_rate = true;
    // The rate-control buffer in milliseconds of the target rate (0: any).
    int min_buffer_ms = 0;
    int max_buffer_ms = 0;
};

// Which of libavcodec's option sets opens the encoder
// (engine/encode/backend/libavcodec_encoder.cpp), or ladder's own NVENC
// client (nvenc_direct: engine/encode/backend/nvenc_encoder.*).
enum class EncoderFamily { svt_av1, aom, nvenc, quick_sync, nvenc_direct };

// Who drives NVENC (--nvenc-client): ladder through NVIDIA's API, or
// libavcodec's av1_nvenc (FFmpeg 6.0+; its opens wait for FFmpeg's
// process-wide codec lock).
enum class NvencClient { ladder, ffmpeg };

// Bits an encoder makes for the bits it is asked for, in a session's first
// chunk and in the rest, before a run has measured any (the rung rate
// feedback's prior).
struct RateResponse {
    double first = 1.0;
    double rest = 1.0;
};

struct EncoderTraits {
    // libavcodec's: libsvtav1, libaom-av1, av1_nvenc, av1_qsv; ladder-nvenc
    // for ladder's own NVENC client.
    std::string_view name;
    std::string_view short_name;  // slot labels and the command line: svt, aom, nvenc, qsv
    EncoderFamily family = EncoderFamily::svt_av1;
    DeviceKind device = DeviceKind::cpu;  // where it encodes
    // Takes a number of threads per session (--cpu-threads, tail
    // threading, "x N threads" in the run's slot line); GPU encoders one.
    bool threaded = false;
    // Runs in the slot's encoder process with --isolation process (the CPU
    // encoders); GPU encoders stay in ladder's process, beside their frames
    // and their GPU's shared device context.
    bool in_encoder_process = false;
    // A session goes on past its first chunk. libaom does not: its key
    // frames inside a session need its key frame distance pinned to the
    // chunk, and with that libaom 3.12 (Debian 13) wrote a sequence header
    // (enable_restoration) that differed between sessions of one rung.
    bool keeps_sessions = true;
    // The encoder's own rate control runs over a whole session and it hands
    // back each chunk as it is encoded (no lag): its sessions need not be
    // cut for the rung's rate feedback, and a slot keeps it open between
    // sessions (engine/encode/idle_encoders.*).
    bool controls_session_rate = false;
    // Told where each chunk starts (a forced key frame): NVENC and Quick
    // Sync, on top of their GOP length. The CPU encoders are not: SVT-AV1's
    // closed GOP of one chunk puts a key frame with a sequence header at
    // every chunk start (FFmpeg 6.1+ maps a forced one to an option its VBR
    // mode refuses), and libaom encodes one chunk per session. Only an
    // encoder that forces them may go on with a chunk anywhere in its rung.
    bool forces_key_frames = false;
    // Writes the HDR10 metadata OBUs itself (SVT-AV1, from its parameters);
    // for the others ladder inserts them into key frames.
    bool writes_hdr_metadata = false;
    // Takes a constant quality (CRF) instead of a rate (the complexity
    // analysis' SVT-AV1).
    bool takes_crf = false;
    RateResponse typical_response;
    EncoderLimits limits;
    int default_preset = 8;
    int min_preset = 0;
    int max_preset = 13;
    // Added to a refused rung's advice ("change the rung..."): another
    // encoder whose limits are wider.
    std::string_view wider_alternative;

    bool gpu() const { return device != DeviceKind::cpu; }
    // The name users know it by: SVT-AV1, libaom, NVENC, Quick Sync.
    const std::string& label() const { return limits.label; }
};

// Every encoder ladder drives, in the order above.
std::span<const EncoderTraits> all_encoder_traits();
// The record of a libavcodec encoder name; nullptr for one ladder does not drive.
const EncoderTraits* find_encoder_traits(std::string_view name);
// The same; throws std::invalid_argument naming the encoder for one ladder does not drive.
const EncoderTraits& encoder_traits(std::string_view name);
// The GPU encoder of a device kind (ladder-nvenc or av1_nvenc by client,
// av1_qsv); nullptr for the CPU.
const EncoderTraits* gpu_encoder_traits(DeviceKind device, NvencClient client = NvencClient::ladder);

}  // namespace ladder::gpu
