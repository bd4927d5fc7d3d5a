// The stand-in NVENC's buffers: input surfaces (host buffers or registered
// CUDA device pointers), their mappings and bitstream outputs, and the
// copy of a surface's planes into a libaom picture.
#pragma once

#include <aom/aom_image.h>
#include <ffnvcodec/dynlink_cuda.h>
#include <ffnvcodec/nvEncodeAPI.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ladder::standin {

struct Output;

// Where a picture's bytes are: an input buffer (host memory) or a
// registered CUDA device pointer.
struct Surface {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t pitch = 0;
    NV_ENC_BUFFER_FORMAT format = NV_ENC_BUFFER_FORMAT_UNDEFINED;
    std::vector<std::uint8_t> host;  // input buffers only
    CUdeviceptr device = 0;          // registered resources only
    bool locked = false;             // input buffers: locked by the client now
    int mappings = 0;                // registered resources: mapped now
    Output* encoded_into = nullptr;  // input buffers: the bitstream their last picture went to
};

struct Mapping {
    Surface* surface = nullptr;
    Output* encoded_into = nullptr;  // the bitstream its picture went to, once encoded
};

struct Output {
    // A picture was encoded into it and the client has not locked it yet.
    bool unread = false;
    bool locked = false;
    // Its picture is still queued for the engine (EngineQueue's lock guards
    // this and what the engine writes: status, bytes, qp, type).
    bool pending = false;
    NVENCSTATUS status = NV_ENC_SUCCESS;
    std::string error;  // the engine's words for a status other than success
    std::vector<std::uint8_t> bytes;
    std::uint64_t pts = 0;
    std::uint64_t duration = 0;
    std::uint32_t frame_idx = 0;
    std::uint32_t qp = 0;
    NV_ENC_PIC_TYPE type = NV_ENC_PIC_TYPE_P;
};

inline bool ten_bit(NV_ENC_BUFFER_FORMAT f) { return f == NV_ENC_BUFFER_FORMAT_YUV420_10BIT; }
inline bool supported(NV_ENC_BUFFER_FORMAT f) {
    return f == NV_ENC_BUFFER_FORMAT_NV12 || f == NV_ENC_BUFFER_FORMAT_YV12 || f == NV_ENC_BUFFER_FORMAT_IYUV ||
           f == NV_ENC_BUFFER_FORMAT_YUV420_10BIT;
}
// Rows of a 4:2:0 surface: luma, then chroma.
inline std::size_t surface_rows(std::uint32_t height) { return height + (height + 1) / 2; }

struct FreeImage {
    void operator()(aom_image_t* img) const { aom_img_free(img); }
};
using Image = std::unique_ptr<aom_image_t, FreeImage>;

// Planes of a surface laid out as NVENC defines its buffer formats (chroma
// after `height` rows of luma; planar chroma at half the pitch) into
// libaom's I420 / I42016.
void fill_image(const std::uint8_t* base, const Surface& s, std::uint32_t width, std::uint32_t height, aom_image_t& img);

}  // namespace ladder::standin
