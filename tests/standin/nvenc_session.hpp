// One stand-in NVENC session: its buffers, its libaom encoder, its pace and
// the session claim that counts it against the driver's limits.
#pragma once

#include <ffnvcodec/nvEncodeAPI.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "tests/standin/aom_picture_encoder.hpp"
#include "tests/standin/cuda_calls.hpp"
#include "tests/standin/engine_queue.hpp"
#include "tests/standin/nvenc_pace.hpp"
#include "tests/standin/nvenc_surface.hpp"
#include "tests/standin/session_registry.hpp"
#include "tests/standin/standin_settings.hpp"

namespace ladder::standin {

inline bool same(const GUID& a, const GUID& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline int preset_number(const GUID& preset) {
    const GUID presets[] = {NV_ENC_PRESET_P1_GUID, NV_ENC_PRESET_P2_GUID, NV_ENC_PRESET_P3_GUID, NV_ENC_PRESET_P4_GUID,
                            NV_ENC_PRESET_P5_GUID, NV_ENC_PRESET_P6_GUID, NV_ENC_PRESET_P7_GUID};
    for (int i = 0; i < 7; ++i)
        if (same(preset, presets[i])) return i + 1;
    return 4;  // FFmpeg's default
}
inline bool low_latency(NV_ENC_TUNING_INFO t) {
    return t == NV_ENC_TUNING_INFO_LOW_LATENCY || t == NV_ENC_TUNING_INFO_ULTRA_LOW_LATENCY;
}

class Session {
public:
    Session(int gpu, SessionClaim claim) : gpu_(gpu), claim_(std::move(claim)) {}

    int gpu() const { return gpu_; }
    std::uint32_t width() const { return width_; }
    std::uint32_t height() const { return height_; }
    std::int64_t frames() const { return frames_; }
    // Frames that came as CUDA device memory (registered and mapped), not
    // through input buffers in host memory.
    std::int64_t device_frames() const { return device_frames_; }
    // The most pictures encoded and not yet locked at once.
    int most_in_flight() const { return most_in_flight_; }
    // A picture's bitstream was locked.
    void picture_taken() { --in_flight_; }
    // Seconds this session held an NVENC engine (0 without a pace).
    double busy_seconds() const { return pace_ ? pace_->busy_seconds() : 0.0; }
    // How long one frame holds an engine (0 without a pace).
    double frame_seconds() const { return pace_ ? pace_->per_frame().count() : 0.0; }
    const std::string& last_error() const { return last_error_; }

    NVENCSTATUS fail(NVENCSTATUS status, std::string why) {
        last_error_ = std::move(why);
        return status;
    }

    // NVIDIA's contract (NVENC Video Encoder API Programming Guide): a call
    // out of order, a structure of another version than the stand-in's
    // headers', or two threads in one session's calls at once is misuse.
    // The call fails (NV_ENC_ERR_INVALID_CALL unless said otherwise) and the
    // event log and stderr say what, so a client that misuses the API fails
    // its tests (tests/e2e/standin_nvenc_test.cpp checks every log).
    NVENCSTATUS misuse(const std::string& what, NVENCSTATUS status = NV_ENC_ERR_INVALID_CALL) {
        report_misuse(gpu_, what);
        return fail(status, "misuse: " + what);
    }
    bool initialized() const { return encoder_ != nullptr; }
    // Held for a call into the session: a second thread inside it at the
    // same time is misuse (a session is not thread-safe).
    class Call {
    public:
        explicit Call(Session& s) : s_(s), alone_(s.calls_.fetch_add(1) == 0) {}
        Call(const Call&) = delete;
        Call& operator=(const Call&) = delete;
        ~Call() { s_.calls_.fetch_sub(1); }
        bool alone() const { return alone_; }

    private:
        Session& s_;
        bool alone_;
    };
    // The end of stream was sent: the client is tearing the session down.
    bool ended() const { return ended_; }
    int mapped_now() const {
        int n = 0;
        for (const auto& [handle, r] : resources_) n += r->mappings;
        return n;
    }
    std::size_t registered_now() const { return resources_.size(); }

    NVENCSTATUS initialize(const NV_ENC_INITIALIZE_PARAMS& p) {
        if (p.version != NV_ENC_INITIALIZE_PARAMS_VER)
            return misuse("NV_ENC_INITIALIZE_PARAMS of another version", NV_ENC_ERR_INVALID_VERSION);
        if (p.encodeConfig && p.encodeConfig->version != NV_ENC_CONFIG_VER)
            return misuse("NV_ENC_CONFIG of another version", NV_ENC_ERR_INVALID_VERSION);
        if (encoder_) return misuse("nvEncInitializeEncoder called twice on one session");
        if (!same(p.encodeGUID, NV_ENC_CODEC_AV1_GUID)) return fail(NV_ENC_ERR_UNSUPPORTED_PARAM, "the stand-in encodes AV1 only");
        if (p.encodeWidth == 0 || p.encodeHeight == 0) return fail(NV_ENC_ERR_INVALID_PARAM, "no picture size");
        AomSettings s;
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
                s.rate = AomSettings::Rate::constant_quality;
                s.quality = std::min(63u, rc.constQP.qpInterP / 4);  // AV1 NVENC QPs run 0-255
            } else if (rc.averageBitRate == 0 && rc.targetQuality > 0) {
                s.rate = AomSettings::Rate::constant_quality;
                s.quality = std::min(63u, static_cast<unsigned>(rc.targetQuality));
            } else {
                s.rate = rc.rateControlMode == NV_ENC_PARAMS_RC_CBR ? AomSettings::Rate::cbr
                                                                    : AomSettings::Rate::vbr;
                s.kbps = std::max(1u, rc.averageBitRate / 1000);
            }
        }
        width_ = s.width;
        height_ = s.height;
        ten_bit_ = s.ten_bit;
        try {
            encoder_ = std::make_unique<AomPictureEncoder>(s);
            // Read now: later the encoder is the engine queue's.
            sequence_header_ = encoder_->sequence_header();
        } catch (const std::exception& e) {
            return fail(NV_ENC_ERR_INVALID_PARAM, e.what());
        }
        const double fps = settings().pace_fps_1080p < 0
                               ? published_av1_fps_1080p(preset_number(p.presetGUID), low_latency(p.tuningInfo))
                               : settings().pace_fps_1080p;
        if (fps > 0)
            pace_ = std::make_unique<EnginePace>(gpu_, settings().engines,
                                                          frame_time(fps, s.width, s.height));
        // What opening a real session costs (tests/standin/README.md).
        std::this_thread::sleep_for(std::chrono::milliseconds(settings().open_ms));
        return NV_ENC_SUCCESS;
    }

    NVENCSTATUS sequence_header(NV_ENC_SEQUENCE_PARAM_PAYLOAD& p) {
        if (!encoder_) return fail(NV_ENC_ERR_ENCODER_NOT_INITIALIZED, "not initialized");
        const std::vector<std::uint8_t>& header = sequence_header_;
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
        auto m = std::make_unique<Mapping>(Mapping{it->second.get(), nullptr});
        ++it->second->mappings;
        void* handle = m.get();
        mappings_[handle] = std::move(m);
        return handle;
    }
    Mapping* mapping(void* handle) {
        auto it = mappings_.find(handle);
        return it == mappings_.end() ? nullptr : it->second.get();
    }
    Surface* resource(void* handle) {
        auto it = resources_.find(handle);
        return it == resources_.end() ? nullptr : it->second.get();
    }
    bool unmap(void* handle) {
        auto it = mappings_.find(handle);
        if (it == mappings_.end()) return false;
        --it->second->surface->mappings;
        mappings_.erase(it);
        return true;
    }

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
    bool remove_output(void* handle) {
        auto it = outputs_.find(handle);
        if (it == outputs_.end()) return false;
        for (auto& [h, in] : inputs_)
            if (in->encoded_into == it->second.get()) in->encoded_into = nullptr;
        for (auto& [h, m] : mappings_)
            if (m->encoded_into == it->second.get()) m->encoded_into = nullptr;
        outputs_.erase(it);
        return true;
    }

    NVENCSTATUS encode(const NV_ENC_PIC_PARAMS& p) {
        if (p.version != NV_ENC_PIC_PARAMS_VER) return misuse("NV_ENC_PIC_PARAMS of another version", NV_ENC_ERR_INVALID_VERSION);
        // FFmpeg sends the end of stream at its flush and again at close.
        if (p.encodePicFlags & NV_ENC_PIC_FLAG_EOS) {
            ended_ = true;
            return NV_ENC_SUCCESS;  // nothing held back: no lag
        }
        if (ended_) return misuse("a picture sent after the end of stream");
        if (!encoder_) return misuse("nvEncEncodePicture before nvEncInitializeEncoder", NV_ENC_ERR_ENCODER_NOT_INITIALIZED);
        Output* out = output(p.outputBitstream);
        if (!out) return fail(NV_ENC_ERR_INVALID_PARAM, "unknown output bitstream buffer");
        if (out->unread) return misuse("a picture encoded into a bitstream buffer whose last picture was not locked");
        if (out->locked) return misuse("a picture encoded into a bitstream buffer the client holds locked");
        if (const Surface* in = input(p.inputBuffer); in && in->locked)
            return misuse("an input buffer encoded while the client holds it locked");
        const GpuLoss& loss = settings().loss;
        if (loss.gpu == gpu_ && frames_ >= loss.after_frames) {
            mark_lost(gpu_);
            log_event(fmt::format("lost gpu={} pid={} frames={}", gpu_, getpid(), frames_));
            return fail(NV_ENC_ERR_DEVICE_NOT_EXIST, "the stand-in lost this GPU (LADDER_STANDIN_LOSE_GPU)");
        }
        Surface* surface = nullptr;
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
        // The picture's pixels are read now, in the client's call (NVENC reads
        // them later; the client may not touch them until the lock, which
        // lock_input and unmap check); the engine queue makes the picture.
        const bool reuse_key = settings().throughput && settings().first_key_frame_only;
        const bool repeat = settings().throughput && !idr && !intra;
        const bool key = idr || intra;
        std::shared_ptr<aom_image_t> pixels;
        if (!repeat && !(reuse_key && key_frame_made_)) {
            if (NVENCSTATUS st = read_pixels(*surface, on_device, pixels); st != NV_ENC_SUCCESS) return st;
            key_frame_made_ = key_frame_made_ || key;
        }
        auto work = [this, pixels, repeat, reuse_key, key, frame = frames_](EncodedPicture& pic) {
            const auto make = [&] {
                if (repeat) {
                    pic = repeated_key_frame();
                    return NV_ENC_SUCCESS;
                }
                if (reuse_key && first_key_) {
                    pic = *first_key_;
                    return NV_ENC_SUCCESS;
                }
                // The first key frame's encode failed: nothing to repeat.
                if (!pixels) throw std::runtime_error("no key frame to repeat: the session's first one failed");
                pic = encoder_->encode(*pixels, frame, key);  // throws: the queue says so at the lock
                if (reuse_key) first_key_ = pic;
                return NV_ENC_SUCCESS;
            };
            return pace_ ? pace_->frame(make) : make();
        };
        out->pts = p.inputTimeStamp;
        out->duration = p.inputDuration;  // FFmpeg keys its own bookkeeping on the echo
        out->frame_idx = p.frameIdx;
        out->unread = true;
        if (on_device) mappings_.at(p.inputBuffer)->encoded_into = out;
        else surface->encoded_into = out;
        since_key_ = key ? 1 : since_key_ + 1;  // idrPeriod counts from the last key frame
        ++frames_;
        most_in_flight_ = std::max(most_in_flight_, ++in_flight_);
        engine_.push(*out, idr, std::move(work));
        return NV_ENC_SUCCESS;
    }

    // Waits for the buffer's picture to leave the engine.
    void wait_for(const Output& out) { engine_.wait_for(out); }
    // Waits for every picture queued (before the session's numbers are read).
    void wait_all() { engine_.wait_all(); }

private:
    NVENCSTATUS read_pixels(const Surface& surface, bool on_device, std::shared_ptr<aom_image_t>& pixels) {
        std::vector<std::uint8_t> copied;
        const std::uint8_t* base = surface.host.data();
        if (on_device) {
            if (NVENCSTATUS st = download(surface, copied); st != NV_ENC_SUCCESS) return st;
            base = copied.data();
        }
        pixels.reset(aom_img_alloc(nullptr, ten_bit_ ? AOM_IMG_FMT_I42016 : AOM_IMG_FMT_I420, width_, height_, 32),
                     FreeImage{});
        if (!pixels) return fail(NV_ENC_ERR_OUT_OF_MEMORY, "picture");
        fill_image(base, surface, std::min(width_, surface.width), std::min(height_, surface.height), *pixels);
        return NV_ENC_SUCCESS;
    }

    // Throughput mode: a temporal unit that shows the last key frame again
    // (a temporal delimiter, then a frame header with show_existing_frame =
    // 1 and frame_to_show_map_idx = 0, which a key frame always refreshes):
    // valid AV1 that costs nothing to make, so the pace sets the speed.
    static EncodedPicture repeated_key_frame() {
        EncodedPicture pic;
        pic.bytes = {0x12, 0x00,         // OBU_TEMPORAL_DELIMITER, size 0
                     0x1A, 0x01, 0x88};  // OBU_FRAME_HEADER, size 1: 1 (show existing) 000 (slot 0), trailing bits
        return pic;
    }

    // A CUDA frame comes to host memory in one copy: its planes are
    // contiguous, as FFmpeg's CUDA frame pool and NVDEC lay them out.
    NVENCSTATUS download(const Surface& s, std::vector<std::uint8_t>& host) {
        const CudaCalls& cu = cuda();
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
    SessionClaim claim_;
    std::unique_ptr<AomPictureEncoder> encoder_;
    std::unique_ptr<EnginePace> pace_;
    // LADDER_STANDIN_KEY_FRAMES=first: the key frame every later one repeats
    // (a key frame with its sequence header stands alone: valid AV1 that
    // shows the session's first picture), so that libaom's time on the host
    // is not counted as the engine's.
    std::optional<EncodedPicture> first_key_;  // the engine queue's
    bool key_frame_made_ = false;              // a key frame was queued (the client's side of first_key_)
    std::vector<std::uint8_t> sequence_header_;
    std::uint32_t width_ = 0;
    std::uint32_t height_ = 0;
    bool ten_bit_ = false;
    std::uint32_t gop_ = 0;
    std::uint32_t since_key_ = 0;
    bool ended_ = false;
    std::atomic<int> calls_{0};
    std::int64_t frames_ = 0;
    std::int64_t device_frames_ = 0;
    int in_flight_ = 0;  // pictures encoded, their bitstreams not locked yet
    int most_in_flight_ = 0;
    std::string last_error_;
    std::map<void*, std::unique_ptr<Surface>> inputs_;
    std::map<void*, std::unique_ptr<Surface>> resources_;
    std::map<void*, std::unique_ptr<Mapping>> mappings_;
    std::map<void*, std::unique_ptr<Output>> outputs_;
    // Last: its thread may still fill outputs_ and read encoder_ and
    // pace_ until it is gone.
    EngineQueue engine_;
};

}  // namespace ladder::standin
