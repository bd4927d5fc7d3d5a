#pragma once
// One NVENC encode session driven through NVIDIA's API directly
// (gpu/nvenc_library.*), not through libavcodec: no process-wide lock on
// open, and the session stays open across the chunks of its rung, a key
// frame with a sequence header forced at each chunk start. It runs on the
// GPU's one CUDA context (the one NVDEC and scale_cuda use, av/hw_device.*),
// made current only around its own calls. Frames in GPU memory are
// registered once per buffer and mapped for each picture, without a copy;
// frames in host memory go through an input buffer of the session.
// Synchronous mode, with a few pictures in flight as NVIDIA's NvEncoder
// sample keeps them: each picture has its own bitstream buffer (and input
// buffer, for host frames), so the next picture is copied and sent while
// NVENC encodes the last; a picture's bitstream is locked when its buffer
// is needed again or the caller asks for every picture (finish()). All calls
// of one session come from one thread (its slot's worker).
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include <ffnvcodec/dynlink_cuda.h>
#include <ffnvcodec/nvEncodeAPI.h>

#include "av/handles.hpp"
#include "gpu/nvenc_library.hpp"

namespace ladder::engine {

struct NvencSessionSettings {
    int width = 0;
    int height = 0;
    bool ten_bit = false;
    AVRational frame_rate{25, 1};
    int preset = 5;  // P1..P7
    // VBR with a max rate and a buffer (bits per second, bits).
    std::int64_t bit_rate = 0;
    std::int64_t max_rate = 0;
    int buffer_bits = 0;
    AVColorPrimaries color_primaries = AVCOL_PRI_UNSPECIFIED;
    AVColorTransferCharacteristic color_trc = AVCOL_TRC_UNSPECIFIED;
    AVColorSpace colorspace = AVCOL_SPC_UNSPECIFIED;
    bool full_range = false;
};

struct NvencPicture {
    std::vector<std::uint8_t> bytes;
    std::int64_t pts = 0;
    bool key = false;
};

class NvencSession {
public:
    // Opens and initializes the session on `context`. Throws
    // EncoderOpenRefused (with the driver's words) when the driver refuses.
    NvencSession(CUcontext context, const NvencSessionSettings& settings, const std::string& label);
    ~NvencSession();
    NvencSession(const NvencSession&) = delete;
    NvencSession& operator=(const NvencSession&) = delete;

    // Sends one picture (in GPU memory: a CUDA frame of the settings' size,
    // kept until its picture is back; else a host frame in yuv420p, nv12 or
    // p010, or one converted to those). force_key: an IDR with a sequence
    // header. Returns the pictures locked to make room for it (oldest
    // first; at most one). Throws RunError.
    std::vector<NvencPicture> encode(av::FramePtr frame, std::int64_t pts, bool force_key);
    // Every picture still in flight, oldest first.
    std::vector<NvencPicture> finish();
    // The Sequence Header OBU the session writes.
    std::vector<std::uint8_t> sequence_header();
    // Tells the encoder the stream ends, after finish() (nothing is held
    // back: no output).
    void end_of_stream();

    // Pictures in flight at most: NvEncoder's extra output delay.
    static constexpr std::size_t kInFlight = 3;

private:
    class Current;  // the session's CUDA context, current on this thread
    void open(const NvencSessionSettings& s);
    NV_ENC_CONFIG configure(const NvencSessionSettings& s);
    void* host_input(const AVFrame& frame, std::size_t buffer, NV_ENC_BUFFER_FORMAT& format, std::uint32_t& pitch);
    void* mapped_device_input(const AVFrame& frame, NV_ENC_BUFFER_FORMAT& format, std::uint32_t& pitch);
    NvencPicture take_oldest();
    void unregister_idle();
    void check(NVENCSTATUS status, const char* what) const;

    // A picture NVENC has: its buffers' index, and the CUDA frame it reads.
    struct InFlight {
        std::size_t buffer = 0;
        std::int64_t pts = 0;
        NV_ENC_INPUT_PTR mapped = nullptr;
        av::FramePtr frame;
    };

    const gpu::NvencLibrary& lib_;
    CUcontext context_;
    std::string label_;
    void* encoder_ = nullptr;
    std::vector<NV_ENC_OUTPUT_PTR> bitstreams_;  // kInFlight
    std::vector<NV_ENC_INPUT_PTR> inputs_;       // host frames only: kInFlight, made with the first
    NV_ENC_BUFFER_FORMAT input_format_ = NV_ENC_BUFFER_FORMAT_UNDEFINED;
    av::FramePtr converted_;  // host frames in a layout NVENC does not take
    av::SwsPtr sws_;
    std::map<const void*, NV_ENC_REGISTERED_PTR> registered_;  // CUDA frame buffer -> its registration
    std::deque<InFlight> in_flight_;                            // oldest first
    std::size_t next_buffer_ = 0;
    int width_ = 0;
    int height_ = 0;
    std::int64_t pictures_ = 0;  // sent to the encoder
    bool ended_ = false;         // the end of stream was sent
};

}  // namespace ladder::engine
