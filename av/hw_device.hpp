#pragma once
// Hardware device contexts (CUDA for NVDEC/NVENC, QSV for Quick Sync) and
// decoders that output frames in GPU memory. Creation is expensive (a CUDA
// context costs tens of milliseconds), so device contexts are shared: one
// per (type, device) for the whole process.
#include <string>

#include "av/handles.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace ladder::av {

// A new reference to the process-wide context for this device, created on
// first use. device: CUDA ordinal ("0") for CUDA; DRM render node
// ("/dev/dri/renderD128") for QSV. Throws AvError when it cannot be created.
BufferRefPtr shared_hw_device(AVHWDeviceType type, const std::string& device);

// Opens a decoder whose frames come out in GPU memory (hw_format, e.g.
// AV_PIX_FMT_CUDA). Picks libavcodec's native decoder, not libdav1d, because
// only native decoders have hwaccels. When the hwaccel cannot take the stream
// (profile, size), libavcodec falls back to software frames: callers must
// accept both.
CodecContextPtr open_hw_decoder(const AVStream* stream, AVBufferRef* device, AVPixelFormat hw_format);

// Copies GPU frames into a pool of its own, on the same GPU. NVDEC in
// FFmpeg < 6 hands out its decode surfaces themselves (mapped, a few dozen
// at most); a pipeline that holds frames for a while (channels, chunks)
// would starve the decoder ("No decoder surfaces left"), so every decoded
// frame is copied out at once and the surface goes straight back.
class GpuFrameCopier {
public:
    FramePtr copy(const AVFrame* src);

private:
    BufferRefPtr frames_;
    int width_ = 0;
    int height_ = 0;
};

// A copy of a GPU frame in a frame pool of another GPU (pool: an
// AVHWFramesContext of the same size and layout), through host memory:
// FFmpeg's CUDA transfers go between one device and the host.
FramePtr copy_to_gpu_pool(const AVFrame* src, AVBufferRef* pool);

// The device a GPU frame's memory belongs to (its frames context's device
// context); null for a frame in host memory.
const void* frame_device(const AVFrame* frame);

// True when this libavcodec has a hwaccel for the codec on that device type.
bool has_hw_decoder(AVCodecID codec, AVHWDeviceType type);

}  // namespace ladder::av
