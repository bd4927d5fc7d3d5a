#pragma once
// A chunk: frames [first_frame, first_frame + frames) of one rung. The same
// frame numbers in every rung, so segments line up across the ladder.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "av/handles.hpp"
#include "engine/base/memory_budget.hpp"

namespace ladder::engine {

// Carried by a rung's last chunk only, from the scaler that cut it to the
// rung's writer: how long the rung is, numbered as in the whole source.
struct RungEnd {
    int chunks = 0;           // the last chunk's index + 1
    std::int64_t frames = 0;  // the number of the frame after the last
};

struct RawChunk {
    int rung = 0;
    int index = 0;
    std::int64_t first_frame = 0;
    std::vector<av::FramePtr> frames;
    std::size_t bytes = 0;  // pixel bytes held
    // The CUDA ordinal of the GPU whose memory holds the frames, when they
    // stay where NVDEC decoded them: only an NVENC session on that GPU can
    // take the chunk. -1: host memory, any encoder.
    int gpu = -1;
    BudgetReservation reservation;  // returned when the raw frames go
    std::optional<RungEnd> ends_rung;  // the rung's last chunk
};

// How per-frame values make a mean, as FFmpeg's filters make their
// summaries: SSIM (lavfi.ssim.All) plainly; PSNR over the frames' mean
// squared error (lavfi.psnr.mse_avg), then in dB; XPSNR (luma,
// lavfi.xpsnr.xpsnr.y) over the frames' root weighted error, then in dB.
enum class QualityAveraging { plain, mse, root_error };

// What --quality measured of one chunk (engine/check/chunk_quality.hpp).
struct ChunkQuality {
    double value = 0;  // this chunk's dB (psnr, xpsnr) or SSIM
    double sum = 0;    // per-frame sum of the averaged quantity, for the rung's mean
    long frames = 0;
    int max_sample = 255;  // (1 << bit depth) - 1, for psnr
    QualityAveraging averaging = QualityAveraging::plain;
};

struct EncodedChunk {
    int rung = 0;
    int index = 0;
    std::int64_t first_frame = 0;
    std::int64_t frame_count = 0;
    // Packets with pts/dts in frames since the start of the rung (time base
    // 1/frame_rate); the first is a key frame carrying a sequence header.
    std::vector<av::PacketPtr> packets;
    // Stream parameters of the encoder that made it; extradata is the
    // sequence header OBU taken from the first packet (what av1C holds).
    std::shared_ptr<const AVCodecParameters> codecpar;
    std::size_t bytes = 0;
    std::string slot_label;
    std::string encoder;
    int requested_kbps = 0;  // what the encoder was asked for (RungRateFeedback)
    int session = -1;        // the encoder session that made it (JobReport::sessions)
    int frames_gpu = -1;     // RawChunk::gpu of its frames
    double start_seconds = 0;  // since job start
    double end_seconds = 0;
    std::optional<ChunkQuality> quality;  // with --quality, once accepted
    std::optional<RungEnd> ends_rung;     // the rung's last chunk (RawChunk::ends_rung)
};

}  // namespace ladder::engine
