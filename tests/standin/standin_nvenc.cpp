// A stand-in for the NVENC library (libnvidia-encode.so.1) that FFmpeg 7.1's
// av1_nvenc runs against unmodified. It implements the NVENC API of
// nv-codec-headers 12.1 far enough for FFmpeg and ladder's probe, and encodes
// real AV1 with libaom (real-time usage, no lag: one output per input).
// It proves ladder's plumbing and its FFmpeg integration, not NVENC's
// bitstream, rate control or speed. Test equipment, never installed
// (tests/standin/README.md).
#include <aom/aom_image.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <ffnvcodec/nvEncodeAPI.h>

#include "tests/standin/aom_picture_encoder.hpp"
#include "tests/standin/cuda_calls.hpp"
#include "tests/standin/nvenc_pace.hpp"
#include "tests/standin/session_registry.hpp"
#include "tests/standin/standin_settings.hpp"

namespace standin = ladder::standin;

namespace {

bool same(const GUID& a, const GUID& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

constexpr std::uint32_t kMaxSupportedVersion = (NVENCAPI_MAJOR_VERSION << 4) | NVENCAPI_MINOR_VERSION;

// Where a picture's bytes are: an input buffer (host memory) or a
// registered CUDA device pointer.
struct Surface {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t pitch = 0;
    NV_ENC_BUFFER_FORMAT format = NV_ENC_BUFFER_FORMAT_UNDEFINED;
    std::vector<std::uint8_t> host;  // input buffers only
    CUdeviceptr device = 0;          // registered resources only
};

struct Mapping {
    Surface* surface = nullptr;
};

struct Output {
    std::vector<std::uint8_t> bytes;
    std::uint64_t pts = 0;
    std::uint64_t duration = 0;
    std::uint32_t frame_idx = 0;
    std::uint32_t qp = 0;
    NV_ENC_PIC_TYPE type = NV_ENC_PIC_TYPE_P;
};

bool ten_bit(NV_ENC_BUFFER_FORMAT f) { return f == NV_ENC_BUFFER_FORMAT_YUV420_10BIT; }
bool supported(NV_ENC_BUFFER_FORMAT f) {
    return f == NV_ENC_BUFFER_FORMAT_NV12 || f == NV_ENC_BUFFER_FORMAT_YV12 || f == NV_ENC_BUFFER_FORMAT_IYUV ||
           f == NV_ENC_BUFFER_FORMAT_YUV420_10BIT;
}
std::size_t surface_rows(std::uint32_t height) { return height + (height + 1) / 2; }

struct FreeImage {
    void operator()(aom_image_t* img) const { aom_img_free(img); }
};
using Image = std::unique_ptr<aom_image_t, FreeImage>;

// Planes of a surface laid out as NVENC defines its buffer formats (chroma
// after `height` rows of luma; planar chroma at half the pitch) into
// libaom's I420 / I42016.
void fill_image(const std::uint8_t* base, const Surface& s, std::uint32_t width, std::uint32_t height, aom_image_t& img) {
    const std::uint32_t cw = (width + 1) / 2, ch = (height + 1) / 2;
    const std::uint8_t* chroma = base + static_cast<std::size_t>(s.pitch) * s.height;
    if (ten_bit(s.format)) {
        for (std::uint32_t y = 0; y < height; ++y) {
            const auto* src = reinterpret_cast<const std::uint16_t*>(base + static_cast<std::size_t>(y) * s.pitch);
            auto* dst = reinterpret_cast<std::uint16_t*>(img.planes[0] + static_cast<std::size_t>(y) * img.stride[0]);
            for (std::uint32_t x = 0; x < width; ++x) dst[x] = static_cast<std::uint16_t>(src[x] >> 6);
        }
        for (std::uint32_t y = 0; y < ch; ++y) {
            const auto* src = reinterpret_cast<const std::uint16_t*>(chroma + static_cast<std::size_t>(y) * s.pitch);
            auto* u = reinterpret_cast<std::uint16_t*>(img.planes[1] + static_cast<std::size_t>(y) * img.stride[1]);
            auto* v = reinterpret_cast<std::uint16_t*>(img.planes[2] + static_cast<std::size_t>(y) * img.stride[2]);
            for (std::uint32_t x = 0; x < cw; ++x) {
                u[x] = static_cast<std::uint16_t>(src[2 * x] >> 6);
                v[x] = static_cast<std::uint16_t>(src[2 * x + 1] >> 6);
            }
        }
        return;
    }
    for (std::uint32_t y = 0; y < height; ++y)
        std::memcpy(img.planes[0] + static_cast<std::size_t>(y) * img.stride[0], base + static_cast<std::size_t>(y) * s.pitch, width);
    if (s.format == NV_ENC_BUFFER_FORMAT_NV12) {
        for (std::uint32_t y = 0; y < ch; ++y) {
            const std::uint8_t* src = chroma + static_cast<std::size_t>(y) * s.pitch;
            std::uint8_t* u = img.planes[1] + static_cast<std::size_t>(y) * img.stride[1];
            std::uint8_t* v = img.planes[2] + static_cast<std::size_t>(y) * img.stride[2];
            for (std::uint32_t x = 0; x < cw; ++x) {
                u[x] = src[2 * x];
                v[x] = src[2 * x + 1];
            }
        }
        return;
    }
    const std::size_t half = s.pitch / 2;
    const std::uint8_t* first = chroma;
    const std::uint8_t* second = chroma + half * ((s.height + 1) / 2);
    const std::uint8_t* u = s.format == NV_ENC_BUFFER_FORMAT_YV12 ? second : first;
    const std::uint8_t* v = s.format == NV_ENC_BUFFER_FORMAT_YV12 ? first : second;
    for (std::uint32_t y = 0; y < ch; ++y) {
        std::memcpy(img.planes[1] + static_cast<std::size_t>(y) * img.stride[1], u + y * half, cw);
        std::memcpy(img.planes[2] + static_cast<std::size_t>(y) * img.stride[2], v + y * half, cw);
    }
}

int preset_number(const GUID& preset) {
    const GUID presets[] = {NV_ENC_PRESET_P1_GUID, NV_ENC_PRESET_P2_GUID, NV_ENC_PRESET_P3_GUID, NV_ENC_PRESET_P4_GUID,
                            NV_ENC_PRESET_P5_GUID, NV_ENC_PRESET_P6_GUID, NV_ENC_PRESET_P7_GUID};
    for (int i = 0; i < 7; ++i)
        if (same(preset, presets[i])) return i + 1;
    return 4;  // FFmpeg's default
}
bool low_latency(NV_ENC_TUNING_INFO t) {
    return t == NV_ENC_TUNING_INFO_LOW_LATENCY || t == NV_ENC_TUNING_INFO_ULTRA_LOW_LATENCY;
}

class Session {
public:
    Session(int gpu, standin::SessionClaim claim) : gpu_(gpu), claim_(std::move(claim)) {}

    int gpu() const { return gpu_; }
    std::uint32_t width() const { return width_; }
    std::uint32_t height() const { return height_; }
    std::int64_t frames() const { return frames_; }
    // Frames that came as CUDA device memory (registered and mapped), not
    // through input buffers in host memory.
    std::int64_t device_frames() const { return device_frames_; }
    // Seconds this session held an NVENC engine (0 without a pace).
    double busy_seconds() const { return pace_ ? pace_->busy_seconds() : 0.0; }
    // How long one frame holds an engine (0 without a pace).
    double frame_seconds() const { return pace_ ? pace_->per_frame().count() : 0.0; }
    const std::string& last_error() const { return last_error_; }

    NVENCSTATUS fail(NVENCSTATUS status, std::string why) {
        last_error_ = std::move(why);
        return status;
    }

    NVENCSTATUS initialize(const NV_ENC_INITIALIZE_PARAMS& p) {
        if (!same(p.encodeGUID, NV_ENC_CODEC_AV1_GUID)) return fail(NV_ENC_ERR_UNSUPPORTED_PARAM, "the stand-in encodes AV1 only");
        if (p.encodeWidth == 0 || p.encodeHeight == 0) return fail(NV_ENC_ERR_INVALID_PARAM, "no picture size");
        standin::AomSettings s;
        s.width = p.encodeWidth;
        s.height = p.encodeHeight;
        s.fps_num = p.frameRateNum ? p.frameRateNum : 25;
        s.fps_den = p.frameRateDen ? p.frameRateDen : 1;
        if (const NV_ENC_CONFIG* c = p.encodeConfig) {
            const NV_ENC_CONFIG_AV1& av1 = c->encodeCodecConfig.av1Config;
            s.ten_bit = av1.pixelBitDepthMinus8 == 2 || av1.inputPixelBitDepthMinus8 == 2;
            gop_ = av1.idrPeriod ? av1.idrPeriod : c->gopLength;
            s.color_primaries = av1.colorPrimaries;
            s.transfer_characteristics = av1.transferCharacteristics;
            s.matrix_coefficients = av1.matrixCoefficients;
            s.full_range = av1.colorRange != 0;
            const NV_ENC_RC_PARAMS& rc = c->rcParams;
            if (rc.rateControlMode == NV_ENC_PARAMS_RC_CONSTQP) {
                s.rate = standin::AomSettings::Rate::constant_quality;
                s.quality = std::min(63u, rc.constQP.qpInterP / 4);  // AV1 NVENC QPs run 0-255
            } else if (rc.averageBitRate == 0 && rc.targetQuality > 0) {
                s.rate = standin::AomSettings::Rate::constant_quality;
                s.quality = std::min(63u, static_cast<unsigned>(rc.targetQuality));
            } else {
                s.rate = rc.rateControlMode == NV_ENC_PARAMS_RC_CBR ? standin::AomSettings::Rate::cbr
                                                                    : standin::AomSettings::Rate::vbr;
                s.kbps = std::max(1u, rc.averageBitRate / 1000);
            }
        }
        width_ = s.width;
        height_ = s.height;
        ten_bit_ = s.ten_bit;
        try {
            encoder_ = std::make_unique<standin::AomPictureEncoder>(s);
        } catch (const std::exception& e) {
            return fail(NV_ENC_ERR_INVALID_PARAM, e.what());
        }
        const double fps = standin::settings().pace_fps_1080p < 0
                               ? standin::published_av1_fps_1080p(preset_number(p.presetGUID), low_latency(p.tuningInfo))
                               : standin::settings().pace_fps_1080p;
        if (fps > 0)
            pace_ = std::make_unique<standin::EnginePace>(gpu_, standin::settings().engines,
                                                          standin::frame_time(fps, s.width, s.height));
        // What opening a real session costs (tests/standin/README.md).
        std::this_thread::sleep_for(std::chrono::milliseconds(standin::settings().open_ms));
        return NV_ENC_SUCCESS;
    }

    NVENCSTATUS sequence_header(NV_ENC_SEQUENCE_PARAM_PAYLOAD& p) {
        if (!encoder_) return fail(NV_ENC_ERR_ENCODER_NOT_INITIALIZED, "not initialized");
        const std::vector<std::uint8_t> header = encoder_->sequence_header();
        if (header.empty() || header.size() > p.inBufferSize) return fail(NV_ENC_ERR_NOT_ENOUGH_BUFFER, "sequence header");
        std::memcpy(p.spsppsBuffer, header.data(), header.size());
        if (p.outSPSPPSPayloadSize) *p.outSPSPPSPayloadSize = static_cast<std::uint32_t>(header.size());
        return NV_ENC_SUCCESS;
    }

    void* add_input(std::uint32_t width, std::uint32_t height, NV_ENC_BUFFER_FORMAT format) {
        auto s = std::make_unique<Surface>();
        s->width = width;
        s->height = height;
        s->format = format;
        const std::uint32_t bytes_per_sample = ten_bit(format) ? 2 : 1;
        s->pitch = (width * bytes_per_sample + 255) / 256 * 256;
        s->host.resize(static_cast<std::size_t>(s->pitch) * surface_rows(height));
        void* handle = s.get();
        inputs_[handle] = std::move(s);
        return handle;
    }
    Surface* input(void* handle) {
        auto it = inputs_.find(handle);
        return it == inputs_.end() ? nullptr : it->second.get();
    }
    bool remove_input(void* handle) { return inputs_.erase(handle) > 0; }

    void* add_resource(const NV_ENC_REGISTER_RESOURCE& r) {
        auto s = std::make_unique<Surface>();
        s->width = r.width;
        s->height = r.height;
        s->pitch = r.pitch;
        s->format = r.bufferFormat;
        s->device = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(r.resourceToRegister));
        void* handle = s.get();
        resources_[handle] = std::move(s);
        return handle;
    }
    bool remove_resource(void* handle) { return resources_.erase(handle) > 0; }
    void* map(void* resource) {
        auto it = resources_.find(resource);
        if (it == resources_.end()) return nullptr;
        auto m = std::make_unique<Mapping>(Mapping{it->second.get()});
        void* handle = m.get();
        mappings_[handle] = std::move(m);
        return handle;
    }
    bool unmap(void* handle) { return mappings_.erase(handle) > 0; }

    void* add_output() {
        auto o = std::make_unique<Output>();
        void* handle = o.get();
        outputs_[handle] = std::move(o);
        return handle;
    }
    Output* output(void* handle) {
        auto it = outputs_.find(handle);
        return it == outputs_.end() ? nullptr : it->second.get();
    }
    bool remove_output(void* handle) { return outputs_.erase(handle) > 0; }

    NVENCSTATUS encode(const NV_ENC_PIC_PARAMS& p) {
        if (p.encodePicFlags & NV_ENC_PIC_FLAG_EOS) return NV_ENC_SUCCESS;  // nothing held back: no lag
        if (!encoder_) return fail(NV_ENC_ERR_ENCODER_NOT_INITIALIZED, "not initialized");
        Output* out = output(p.outputBitstream);
        if (!out) return fail(NV_ENC_ERR_INVALID_PARAM, "unknown output bitstream buffer");
        const standin::GpuLoss& loss = standin::settings().loss;
        if (loss.gpu == gpu_ && frames_ >= loss.after_frames) {
            standin::mark_lost(gpu_);
            standin::log_event(fmt::format("lost gpu={} pid={} frames={}", gpu_, getpid(), frames_));
            return fail(NV_ENC_ERR_DEVICE_NOT_EXIST, "the stand-in lost this GPU (LADDER_STANDIN_LOSE_GPU)");
        }
        const Surface* surface = nullptr;
        bool on_device = false;
        if (Surface* s = input(p.inputBuffer)) {
            surface = s;
        } else if (auto it = mappings_.find(p.inputBuffer); it != mappings_.end()) {
            surface = it->second->surface;
            on_device = true;
        } else {
            return fail(NV_ENC_ERR_INVALID_PARAM, "unknown input buffer");
        }
        if (!supported(surface->format)) return fail(NV_ENC_ERR_UNSUPPORTED_PARAM, "buffer format");
        if (on_device) ++device_frames_;
        const bool idr = frames_ == 0 || (p.encodePicFlags & NV_ENC_PIC_FLAG_FORCEIDR) ||
                         (gop_ != 0 && gop_ != NVENC_INFINITE_GOPLENGTH && since_key_ >= gop_);
        const bool intra = p.encodePicFlags & NV_ENC_PIC_FLAG_FORCEINTRA;
        standin::EncodedPicture pic;
        const auto encode_now = [&] {
            if (standin::settings().throughput && !idr && !intra) {
                pic = repeated_key_frame();
                return NV_ENC_SUCCESS;
            }
            return encode_pixels(*surface, on_device, idr || intra, pic);
        };
        if (const NVENCSTATUS st = pace_ ? pace_->frame(encode_now) : encode_now(); st != NV_ENC_SUCCESS) return st;
        out->bytes = std::move(pic.bytes);
        out->qp = static_cast<std::uint32_t>(pic.qp);
        out->type = pic.key ? (idr ? NV_ENC_PIC_TYPE_IDR : NV_ENC_PIC_TYPE_I) : NV_ENC_PIC_TYPE_P;
        out->pts = p.inputTimeStamp;
        out->duration = p.inputDuration;  // FFmpeg keys its own bookkeeping on the echo
        out->frame_idx = p.frameIdx;
        since_key_ = out->type == NV_ENC_PIC_TYPE_P ? since_key_ + 1 : 1;
        ++frames_;
        return NV_ENC_SUCCESS;
    }

private:
    NVENCSTATUS encode_pixels(const Surface& surface, bool on_device, bool key, standin::EncodedPicture& pic) {
        std::vector<std::uint8_t> copied;
        const std::uint8_t* base = surface.host.data();
        if (on_device) {
            if (NVENCSTATUS st = download(surface, copied); st != NV_ENC_SUCCESS) return st;
            base = copied.data();
        }
        const Image img(aom_img_alloc(nullptr, ten_bit_ ? AOM_IMG_FMT_I42016 : AOM_IMG_FMT_I420, width_, height_, 32));
        if (!img) return fail(NV_ENC_ERR_OUT_OF_MEMORY, "picture");
        fill_image(base, surface, std::min(width_, surface.width), std::min(height_, surface.height), *img);
        try {
            pic = encoder_->encode(*img, frames_, key);
        } catch (const std::exception& e) {
            return fail(NV_ENC_ERR_GENERIC, e.what());
        }
        return NV_ENC_SUCCESS;
    }

    // Throughput mode: a temporal unit that shows the last key frame again
    // (a temporal delimiter, then a frame header with show_existing_frame =
    // 1 and frame_to_show_map_idx = 0, which a key frame always refreshes):
    // valid AV1 that costs nothing to make, so the pace sets the speed.
    static standin::EncodedPicture repeated_key_frame() {
        standin::EncodedPicture pic;
        pic.bytes = {0x12, 0x00,         // OBU_TEMPORAL_DELIMITER, size 0
                     0x1A, 0x01, 0x88};  // OBU_FRAME_HEADER, size 1: 1 (show existing) 000 (slot 0), trailing bits
        return pic;
    }

    // A CUDA frame comes to host memory in one copy: its planes are
    // contiguous, as FFmpeg's CUDA frame pool and NVDEC lay them out.
    NVENCSTATUS download(const Surface& s, std::vector<std::uint8_t>& host) {
        const standin::CudaCalls& cu = standin::cuda();
        if (!cu.complete()) return fail(NV_ENC_ERR_GENERIC, "no CUDA driver to read the frame with");
        host.resize(static_cast<std::size_t>(s.pitch) * surface_rows(s.height));
        CUDA_MEMCPY2D c{};
        c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        c.srcDevice = s.device;
        c.srcPitch = s.pitch;
        c.dstMemoryType = CU_MEMORYTYPE_HOST;
        c.dstHost = host.data();
        c.dstPitch = s.pitch;
        c.WidthInBytes = s.pitch;
        c.Height = surface_rows(s.height);
        if (cu.copy_2d(&c) != CUDA_SUCCESS) return fail(NV_ENC_ERR_MAP_FAILED, "cuMemcpy2D of the input frame failed");
        return NV_ENC_SUCCESS;
    }

    int gpu_;
    standin::SessionClaim claim_;
    std::unique_ptr<standin::AomPictureEncoder> encoder_;
    std::unique_ptr<standin::EnginePace> pace_;
    std::uint32_t width_ = 0;
    std::uint32_t height_ = 0;
    bool ten_bit_ = false;
    std::uint32_t gop_ = 0;
    std::uint32_t since_key_ = 0;
    std::int64_t frames_ = 0;
    std::int64_t device_frames_ = 0;
    std::string last_error_;
    std::map<void*, std::unique_ptr<Surface>> inputs_;
    std::map<void*, std::unique_ptr<Surface>> resources_;
    std::map<void*, std::unique_ptr<Mapping>> mappings_;
    std::map<void*, std::unique_ptr<Output>> outputs_;
};

// Every open session; a handle is its Session's address.
class Sessions {
public:
    static Sessions& get() {
        static Sessions s;
        return s;
    }
    void* add(std::unique_ptr<Session> s) {
        std::lock_guard lock(mu_);
        void* handle = s.get();
        sessions_[handle] = std::move(s);
        return handle;
    }
    Session* find(void* handle) {
        std::lock_guard lock(mu_);
        auto it = sessions_.find(handle);
        return it == sessions_.end() ? nullptr : it->second.get();
    }
    std::unique_ptr<Session> take(void* handle) {
        std::lock_guard lock(mu_);
        auto it = sessions_.find(handle);
        if (it == sessions_.end()) return nullptr;
        std::unique_ptr<Session> s = std::move(it->second);
        sessions_.erase(it);
        return s;
    }

private:
    std::mutex mu_;
    std::map<void*, std::unique_ptr<Session>> sessions_;
};

bool serves(int gpu, const std::string& bus_id) {
    const auto& listed = standin::settings().nvenc_gpus;
    if (listed.empty()) return true;
    return std::any_of(listed.begin(), listed.end(), [&](const std::string& entry) {
        return entry == std::to_string(gpu) || standin::same_bus_id(entry, bus_id);
    });
}

Session* session(void* handle) { return Sessions::get().find(handle); }

// ---- the function table's entries ----

NVENCSTATUS NVENCAPI open_session_ex(NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS* p, void** encoder) {
    if (!p || !encoder) return NV_ENC_ERR_INVALID_PTR;
    *encoder = nullptr;
    if (p->apiVersion > NVENCAPI_VERSION) return NV_ENC_ERR_INVALID_VERSION;
    if (p->deviceType != NV_ENC_DEVICE_TYPE_CUDA) return NV_ENC_ERR_UNSUPPORTED_DEVICE;
    std::string bus_id;
    const int gpu = standin::device_of(static_cast<CUcontext>(p->device), bus_id);
    if (gpu < 0) return NV_ENC_ERR_INVALID_DEVICE;
    if (!serves(gpu, bus_id)) return NV_ENC_ERR_UNSUPPORTED_DEVICE;  // what a GPU without NVENC answers
    standin::SessionClaim claim = standin::SessionClaim::claim(gpu);
    if (const int st = claim.status(); st != 0) {
        standin::log_event(fmt::format("refused gpu={} pid={} status={}", gpu, getpid(), st));
        return static_cast<NVENCSTATUS>(st);
    }
    *encoder = Sessions::get().add(std::make_unique<Session>(gpu, std::move(claim)));
    standin::log_event(fmt::format("open gpu={} pid={}", gpu, getpid()));
    return NV_ENC_SUCCESS;
}

NVENCSTATUS NVENCAPI open_session(void*, uint32_t, void**) { return NV_ENC_ERR_UNIMPLEMENTED; }

NVENCSTATUS NVENCAPI guid_count(void* enc, uint32_t* count) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!count) return NV_ENC_ERR_INVALID_PTR;
    *count = 1;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI guids(void* enc, GUID* out, uint32_t size, uint32_t* count) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!out || !count) return NV_ENC_ERR_INVALID_PTR;
    *count = 0;
    if (size >= 1) {
        out[0] = NV_ENC_CODEC_AV1_GUID;
        *count = 1;
    }
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI profile_count(void* enc, GUID, uint32_t* count) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!count) return NV_ENC_ERR_INVALID_PTR;
    *count = 1;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI profiles(void* enc, GUID, GUID* out, uint32_t size, uint32_t* count) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!out || !count) return NV_ENC_ERR_INVALID_PTR;
    *count = 0;
    if (size >= 1) {
        out[0] = NV_ENC_AV1_PROFILE_MAIN_GUID;
        *count = 1;
    }
    return NV_ENC_SUCCESS;
}
constexpr NV_ENC_BUFFER_FORMAT kFormats[] = {NV_ENC_BUFFER_FORMAT_NV12, NV_ENC_BUFFER_FORMAT_YV12,
                                             NV_ENC_BUFFER_FORMAT_IYUV, NV_ENC_BUFFER_FORMAT_YUV420_10BIT};
NVENCSTATUS NVENCAPI format_count(void* enc, GUID, uint32_t* count) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!count) return NV_ENC_ERR_INVALID_PTR;
    *count = std::size(kFormats);
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI formats(void* enc, GUID, NV_ENC_BUFFER_FORMAT* out, uint32_t size, uint32_t* count) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!out || !count) return NV_ENC_ERR_INVALID_PTR;
    *count = std::min<uint32_t>(size, std::size(kFormats));
    std::copy_n(kFormats, *count, out);
    return NV_ENC_SUCCESS;
}

int capability(NV_ENC_CAPS cap) {
    switch (cap) {
        case NV_ENC_CAPS_WIDTH_MAX:
        case NV_ENC_CAPS_HEIGHT_MAX: return 8192;
        case NV_ENC_CAPS_WIDTH_MIN:
        case NV_ENC_CAPS_HEIGHT_MIN: return 16;
        case NV_ENC_CAPS_SUPPORT_10BIT_ENCODE: return 1;
        case NV_ENC_CAPS_SUPPORTED_RATECONTROL_MODES: return NV_ENC_PARAMS_RC_VBR | NV_ENC_PARAMS_RC_CBR;
        case NV_ENC_CAPS_NUM_MAX_BFRAMES: return 0;
        case NV_ENC_CAPS_NUM_ENCODER_ENGINES: return standin::settings().engines;
        default: return 0;  // no B-frames, lookahead, 4:4:4, lossless, AQ or intra refresh
    }
}
NVENCSTATUS NVENCAPI caps(void* enc, GUID codec, NV_ENC_CAPS_PARAM* param, int* value) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!param || !value) return NV_ENC_ERR_INVALID_PTR;
    if (!same(codec, NV_ENC_CODEC_AV1_GUID)) return NV_ENC_ERR_UNSUPPORTED_PARAM;
    *value = capability(param->capsToQuery);
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI preset_count(void* enc, GUID, uint32_t* count) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!count) return NV_ENC_ERR_INVALID_PTR;
    *count = 7;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI presets(void* enc, GUID, GUID* out, uint32_t size, uint32_t* count) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!out || !count) return NV_ENC_ERR_INVALID_PTR;
    const GUID all[] = {NV_ENC_PRESET_P1_GUID, NV_ENC_PRESET_P2_GUID, NV_ENC_PRESET_P3_GUID, NV_ENC_PRESET_P4_GUID,
                        NV_ENC_PRESET_P5_GUID, NV_ENC_PRESET_P6_GUID, NV_ENC_PRESET_P7_GUID};
    *count = std::min<uint32_t>(size, std::size(all));
    std::copy_n(all, *count, out);
    return NV_ENC_SUCCESS;
}
// Every preset the same: in order, no B-frames, no lookahead, VBR, an IDR
// every 250 frames with a sequence header on each.
NVENCSTATUS NVENCAPI preset_config_ex(void* enc, GUID codec, GUID, NV_ENC_TUNING_INFO, NV_ENC_PRESET_CONFIG* p) {
    if (!session(enc)) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    if (!same(codec, NV_ENC_CODEC_AV1_GUID)) return NV_ENC_ERR_UNSUPPORTED_PARAM;
    NV_ENC_CONFIG& c = p->presetCfg;
    const uint32_t version = c.version;
    std::memset(&c, 0, sizeof c);
    c.version = version;
    c.profileGUID = NV_ENC_AV1_PROFILE_MAIN_GUID;
    c.gopLength = 250;
    c.frameIntervalP = 1;
    c.rcParams.rateControlMode = NV_ENC_PARAMS_RC_VBR;
    c.encodeCodecConfig.av1Config.idrPeriod = 250;
    c.encodeCodecConfig.av1Config.repeatSeqHdr = 1;
    c.encodeCodecConfig.av1Config.chromaFormatIDC = 1;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI preset_config(void* enc, GUID codec, GUID preset, NV_ENC_PRESET_CONFIG* p) {
    return preset_config_ex(enc, codec, preset, NV_ENC_TUNING_INFO_HIGH_QUALITY, p);
}
NVENCSTATUS NVENCAPI initialize(void* enc, NV_ENC_INITIALIZE_PARAMS* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    return s->initialize(*p);
}
NVENCSTATUS NVENCAPI create_input(void* enc, NV_ENC_CREATE_INPUT_BUFFER* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    if (!supported(p->bufferFmt)) return s->fail(NV_ENC_ERR_UNSUPPORTED_PARAM, "buffer format");
    p->inputBuffer = s->add_input(p->width, p->height, p->bufferFmt);
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI destroy_input(void* enc, NV_ENC_INPUT_PTR buffer) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    return !buffer || s->remove_input(buffer) ? NV_ENC_SUCCESS : NV_ENC_ERR_INVALID_PARAM;
}
NVENCSTATUS NVENCAPI lock_input(void* enc, NV_ENC_LOCK_INPUT_BUFFER* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    Surface* in = s->input(p->inputBuffer);
    if (!in) return NV_ENC_ERR_INVALID_PARAM;
    p->bufferDataPtr = in->host.data();
    p->pitch = in->pitch;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI unlock_input(void* enc, NV_ENC_INPUT_PTR buffer) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    return s->input(buffer) ? NV_ENC_SUCCESS : NV_ENC_ERR_INVALID_PARAM;
}
NVENCSTATUS NVENCAPI create_bitstream(void* enc, NV_ENC_CREATE_BITSTREAM_BUFFER* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    p->bitstreamBuffer = s->add_output();
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI destroy_bitstream(void* enc, NV_ENC_OUTPUT_PTR buffer) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    return !buffer || s->remove_output(buffer) ? NV_ENC_SUCCESS : NV_ENC_ERR_INVALID_PARAM;
}
NVENCSTATUS NVENCAPI register_resource(void* enc, NV_ENC_REGISTER_RESOURCE* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    if (p->resourceType != NV_ENC_INPUT_RESOURCE_TYPE_CUDADEVICEPTR)
        return s->fail(NV_ENC_ERR_RESOURCE_REGISTER_FAILED, "only CUDA device pointers can be registered");
    if (!supported(p->bufferFormat)) return s->fail(NV_ENC_ERR_UNSUPPORTED_PARAM, "buffer format");
    p->registeredResource = s->add_resource(*p);
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI unregister_resource(void* enc, NV_ENC_REGISTERED_PTR resource) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    return s->remove_resource(resource) ? NV_ENC_SUCCESS : NV_ENC_ERR_RESOURCE_NOT_REGISTERED;
}
NVENCSTATUS NVENCAPI map_resource(void* enc, NV_ENC_MAP_INPUT_RESOURCE* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    void* mapped = s->map(p->registeredResource);
    if (!mapped) return NV_ENC_ERR_RESOURCE_NOT_REGISTERED;
    p->mappedResource = mapped;
    p->mappedBufferFmt = static_cast<Mapping*>(mapped)->surface->format;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI unmap_resource(void* enc, NV_ENC_INPUT_PTR mapped) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    return s->unmap(mapped) ? NV_ENC_SUCCESS : NV_ENC_ERR_RESOURCE_NOT_MAPPED;
}
NVENCSTATUS NVENCAPI encode_picture(void* enc, NV_ENC_PIC_PARAMS* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    return s->encode(*p);
}
NVENCSTATUS NVENCAPI lock_bitstream(void* enc, NV_ENC_LOCK_BITSTREAM* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    Output* out = s->output(p->outputBitstream);
    if (!out) return NV_ENC_ERR_INVALID_PARAM;
    p->bitstreamBufferPtr = out->bytes.data();
    p->bitstreamSizeInBytes = static_cast<uint32_t>(out->bytes.size());
    p->outputTimeStamp = out->pts;
    p->outputDuration = out->duration;
    p->pictureType = out->type;
    p->pictureStruct = NV_ENC_PIC_STRUCT_FRAME;
    p->frameAvgQP = out->qp * 4;  // AV1 NVENC reports QPs of 0-255
    p->frameIdx = out->frame_idx;
    p->frameIdxDisplay = out->frame_idx;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI unlock_bitstream(void* enc, NV_ENC_OUTPUT_PTR buffer) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    return s->output(buffer) ? NV_ENC_SUCCESS : NV_ENC_ERR_INVALID_PARAM;
}
NVENCSTATUS NVENCAPI sequence_params(void* enc, NV_ENC_SEQUENCE_PARAM_PAYLOAD* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p || !p->spsppsBuffer) return NV_ENC_ERR_INVALID_PTR;
    return s->sequence_header(*p);
}
NVENCSTATUS NVENCAPI set_io_streams(void* enc, NV_ENC_CUSTREAM_PTR, NV_ENC_CUSTREAM_PTR) {
    return session(enc) ? NV_ENC_SUCCESS : NV_ENC_ERR_INVALID_ENCODERDEVICE;
}
NVENCSTATUS NVENCAPI reconfigure(void* enc, NV_ENC_RECONFIGURE_PARAMS*) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    return s->fail(NV_ENC_ERR_UNIMPLEMENTED, "the stand-in does not reconfigure");
}
NVENCSTATUS NVENCAPI destroy_encoder(void* enc) {
    std::unique_ptr<Session> s = Sessions::get().take(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    standin::log_event(
        fmt::format("close gpu={} pid={} frames={} device_frames={} busy_ms={} frame_us={} size={}x{}", s->gpu(),
                    getpid(), s->frames(), s->device_frames(), std::lround(s->busy_seconds() * 1000),
                    std::lround(s->frame_seconds() * 1e6), s->width(), s->height()));
    return NV_ENC_SUCCESS;
}
const char* NVENCAPI last_error(void* enc) {
    Session* s = session(enc);
    return s ? s->last_error().c_str() : "";
}

}  // namespace

extern "C" {

NVENCSTATUS NVENCAPI NvEncodeAPIGetMaxSupportedVersion(uint32_t* version) {
    if (!version) return NV_ENC_ERR_INVALID_PTR;
    *version = kMaxSupportedVersion;
    return NV_ENC_SUCCESS;
}

NVENCSTATUS NVENCAPI NvEncodeAPICreateInstance(NV_ENCODE_API_FUNCTION_LIST* f) {
    if (!f) return NV_ENC_ERR_INVALID_PTR;
    if (f->version != NV_ENCODE_API_FUNCTION_LIST_VER) return NV_ENC_ERR_INVALID_VERSION;
    f->nvEncOpenEncodeSession = open_session;
    f->nvEncOpenEncodeSessionEx = open_session_ex;
    f->nvEncGetEncodeGUIDCount = guid_count;
    f->nvEncGetEncodeGUIDs = guids;
    f->nvEncGetEncodeProfileGUIDCount = profile_count;
    f->nvEncGetEncodeProfileGUIDs = profiles;
    f->nvEncGetInputFormatCount = format_count;
    f->nvEncGetInputFormats = formats;
    f->nvEncGetEncodeCaps = caps;
    f->nvEncGetEncodePresetCount = preset_count;
    f->nvEncGetEncodePresetGUIDs = presets;
    f->nvEncGetEncodePresetConfig = preset_config;
    f->nvEncGetEncodePresetConfigEx = preset_config_ex;
    f->nvEncInitializeEncoder = initialize;
    f->nvEncCreateInputBuffer = create_input;
    f->nvEncDestroyInputBuffer = destroy_input;
    f->nvEncLockInputBuffer = lock_input;
    f->nvEncUnlockInputBuffer = unlock_input;
    f->nvEncCreateBitstreamBuffer = create_bitstream;
    f->nvEncDestroyBitstreamBuffer = destroy_bitstream;
    f->nvEncRegisterResource = register_resource;
    f->nvEncUnregisterResource = unregister_resource;
    f->nvEncMapInputResource = map_resource;
    f->nvEncUnmapInputResource = unmap_resource;
    f->nvEncEncodePicture = encode_picture;
    f->nvEncLockBitstream = lock_bitstream;
    f->nvEncUnlockBitstream = unlock_bitstream;
    f->nvEncGetSequenceParams = sequence_params;
    f->nvEncSetIOCudaStreams = set_io_streams;
    f->nvEncReconfigureEncoder = reconfigure;
    f->nvEncDestroyEncoder = destroy_encoder;
    f->nvEncGetLastErrorString = last_error;
    return NV_ENC_SUCCESS;
}

}  // extern "C"
