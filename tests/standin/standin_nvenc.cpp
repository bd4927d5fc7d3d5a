// A stand-in for the NVENC library (libnvidia-encode.so.1) that FFmpeg 7.1's
// av1_nvenc runs against unmodified. It implements the NVENC API of
// nv-codec-headers 12.1 far enough for FFmpeg and ladder's probe, and encodes
// real AV1 with libaom (real-time usage, no lag: one output per input).
// It proves ladder's plumbing and its FFmpeg integration, not NVENC's
// bitstream, rate control or speed. Test equipment, never installed
// (tests/standin/README.md). This file: the API's entry points and the
// open sessions; one session is nvenc_session.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <ffnvcodec/nvEncodeAPI.h>

#include "tests/standin/cuda_calls.hpp"
#include "tests/standin/nvenc_session.hpp"
#include "tests/standin/session_registry.hpp"
#include "tests/standin/standin_settings.hpp"

namespace standin = ladder::standin;
using standin::Mapping;
using standin::Output;
using standin::Session;
using standin::Surface;
using standin::same;
using standin::supported;

namespace {

constexpr std::uint32_t kMaxSupportedVersion = (NVENCAPI_MAJOR_VERSION << 4) | NVENCAPI_MINOR_VERSION;




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
    if (p->version != NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS_VER) {
        standin::report_misuse(-1, "NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS of another version");
        return NV_ENC_ERR_INVALID_VERSION;
    }
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
    if (param->version != NV_ENC_CAPS_PARAM_VER)
        return session(enc)->misuse("NV_ENC_CAPS_PARAM of another version", NV_ENC_ERR_INVALID_VERSION);
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
    if (p->version != NV_ENC_PRESET_CONFIG_VER || p->presetCfg.version != NV_ENC_CONFIG_VER)
        return session(enc)->misuse("NV_ENC_PRESET_CONFIG or its NV_ENC_CONFIG of another version",
                                    NV_ENC_ERR_INVALID_VERSION);
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
    if (p->version != NV_ENC_CREATE_INPUT_BUFFER_VER)
        return s->misuse("NV_ENC_CREATE_INPUT_BUFFER of another version", NV_ENC_ERR_INVALID_VERSION);
    if (!s->initialized()) return s->misuse("an input buffer created before nvEncInitializeEncoder");
    if (!supported(p->bufferFmt)) return s->fail(NV_ENC_ERR_UNSUPPORTED_PARAM, "buffer format");
    p->inputBuffer = s->add_input(p->width, p->height, p->bufferFmt);
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI destroy_input(void* enc, NV_ENC_INPUT_PTR buffer) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (const Surface* in = s->input(buffer); in && in->locked) return s->misuse("an input buffer destroyed while locked");
    return !buffer || s->remove_input(buffer) ? NV_ENC_SUCCESS : NV_ENC_ERR_INVALID_PARAM;
}
NVENCSTATUS NVENCAPI lock_input(void* enc, NV_ENC_LOCK_INPUT_BUFFER* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    if (p->version != NV_ENC_LOCK_INPUT_BUFFER_VER)
        return s->misuse("NV_ENC_LOCK_INPUT_BUFFER of another version", NV_ENC_ERR_INVALID_VERSION);
    Surface* in = s->input(p->inputBuffer);
    if (!in) return NV_ENC_ERR_INVALID_PARAM;
    if (in->locked) return s->misuse("an input buffer locked twice");
    // Its last picture is NVENC's until that picture's bitstream is locked.
    if (in->encoded_into && in->encoded_into->unread && !s->ended())
        return s->misuse("an input buffer written before its picture's bitstream was locked");
    in->locked = true;
    p->bufferDataPtr = in->host.data();
    p->pitch = in->pitch;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI unlock_input(void* enc, NV_ENC_INPUT_PTR buffer) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    Surface* in = s->input(buffer);
    if (!in) return NV_ENC_ERR_INVALID_PARAM;
    if (!in->locked) return s->misuse("an input buffer unlocked that was not locked");
    in->locked = false;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI create_bitstream(void* enc, NV_ENC_CREATE_BITSTREAM_BUFFER* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    if (p->version != NV_ENC_CREATE_BITSTREAM_BUFFER_VER)
        return s->misuse("NV_ENC_CREATE_BITSTREAM_BUFFER of another version", NV_ENC_ERR_INVALID_VERSION);
    if (!s->initialized()) return s->misuse("a bitstream buffer created before nvEncInitializeEncoder");
    p->bitstreamBuffer = s->add_output();
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI destroy_bitstream(void* enc, NV_ENC_OUTPUT_PTR buffer) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    const Output* out = s->output(buffer);
    if (out && out->locked) return s->misuse("a bitstream buffer destroyed while locked");
    if (out) s->wait_for(*out);  // the engine may still be writing into it
    return !buffer || s->remove_output(buffer) ? NV_ENC_SUCCESS : NV_ENC_ERR_INVALID_PARAM;
}
NVENCSTATUS NVENCAPI register_resource(void* enc, NV_ENC_REGISTER_RESOURCE* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    const Session::Call call(*s);
    if (!call.alone()) return s->misuse("two threads in one session's calls at once");
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    if (p->version != NV_ENC_REGISTER_RESOURCE_VER)
        return s->misuse("NV_ENC_REGISTER_RESOURCE of another version", NV_ENC_ERR_INVALID_VERSION);
    if (!s->initialized()) return s->misuse("a resource registered before nvEncInitializeEncoder");
    if (p->resourceType != NV_ENC_INPUT_RESOURCE_TYPE_CUDADEVICEPTR)
        return s->fail(NV_ENC_ERR_RESOURCE_REGISTER_FAILED, "only CUDA device pointers can be registered");
    if (!supported(p->bufferFormat)) return s->fail(NV_ENC_ERR_UNSUPPORTED_PARAM, "buffer format");
    p->registeredResource = s->add_resource(*p);
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI unregister_resource(void* enc, NV_ENC_REGISTERED_PTR resource) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    const Session::Call call(*s);
    if (!call.alone()) return s->misuse("two threads in one session's calls at once");
    if (const Surface* r = s->resource(resource); r && r->mappings > 0)
        return s->misuse("a resource unregistered while mapped");
    return s->remove_resource(resource) ? NV_ENC_SUCCESS : NV_ENC_ERR_RESOURCE_NOT_REGISTERED;
}
NVENCSTATUS NVENCAPI map_resource(void* enc, NV_ENC_MAP_INPUT_RESOURCE* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    const Session::Call call(*s);
    if (!call.alone()) return s->misuse("two threads in one session's calls at once");
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    if (p->version != NV_ENC_MAP_INPUT_RESOURCE_VER)
        return s->misuse("NV_ENC_MAP_INPUT_RESOURCE of another version", NV_ENC_ERR_INVALID_VERSION);
    void* mapped = s->map(p->registeredResource);
    if (!mapped) return NV_ENC_ERR_RESOURCE_NOT_REGISTERED;
    p->mappedResource = mapped;
    p->mappedBufferFmt = static_cast<Mapping*>(mapped)->surface->format;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI unmap_resource(void* enc, NV_ENC_INPUT_PTR mapped) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    const Session::Call call(*s);
    if (!call.alone()) return s->misuse("two threads in one session's calls at once");
    // Before the end of stream a mapped frame is NVENC's until its
    // picture's bitstream is locked (the encode is complete then).
    if (const Mapping* m = s->mapping(mapped); m && m->encoded_into && m->encoded_into->unread && !s->ended())
        return s->misuse("a frame unmapped before its picture's bitstream was locked");
    return s->unmap(mapped) ? NV_ENC_SUCCESS : NV_ENC_ERR_RESOURCE_NOT_MAPPED;
}
NVENCSTATUS NVENCAPI encode_picture(void* enc, NV_ENC_PIC_PARAMS* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    const Session::Call call(*s);
    if (!call.alone()) return s->misuse("two threads in one session's calls at once");
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    return s->encode(*p);
}
NVENCSTATUS NVENCAPI lock_bitstream(void* enc, NV_ENC_LOCK_BITSTREAM* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    const Session::Call call(*s);
    if (!call.alone()) return s->misuse("two threads in one session's calls at once");
    if (!p) return NV_ENC_ERR_INVALID_PTR;
    if (p->version != NV_ENC_LOCK_BITSTREAM_VER)
        return s->misuse("NV_ENC_LOCK_BITSTREAM of another version", NV_ENC_ERR_INVALID_VERSION);
    Output* out = s->output(p->outputBitstream);
    if (!out) return NV_ENC_ERR_INVALID_PARAM;
    if (out->locked) return s->misuse("a bitstream buffer locked twice");
    if (!out->unread) return s->misuse("a bitstream buffer locked with no new picture encoded into it");
    // Synchronous mode: the lock waits for the picture's encode to complete.
    s->wait_for(*out);
    out->unread = false;
    s->picture_taken();
    if (out->status != NV_ENC_SUCCESS) return s->fail(out->status, out->error);
    out->locked = true;
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
    const Session::Call call(*s);
    if (!call.alone()) return s->misuse("two threads in one session's calls at once");
    Output* out = s->output(buffer);
    if (!out) return NV_ENC_ERR_INVALID_PARAM;
    if (!out->locked) return s->misuse("a bitstream buffer unlocked that was not locked");
    out->locked = false;
    return NV_ENC_SUCCESS;
}
NVENCSTATUS NVENCAPI sequence_params(void* enc, NV_ENC_SEQUENCE_PARAM_PAYLOAD* p) {
    Session* s = session(enc);
    if (!s) return NV_ENC_ERR_INVALID_ENCODERDEVICE;
    if (!p || !p->spsppsBuffer) return NV_ENC_ERR_INVALID_PTR;
    if (p->version != NV_ENC_SEQUENCE_PARAM_PAYLOAD_VER)
        return s->misuse("NV_ENC_SEQUENCE_PARAM_PAYLOAD of another version", NV_ENC_ERR_INVALID_VERSION);
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
    s->wait_all();  // its numbers below count every picture sent
    // What NVIDIA's teardown asks, in order: the end of stream, frames
    // unmapped, resources unregistered, then the session destroyed.
    NVENCSTATUS st = NV_ENC_SUCCESS;
    if (s->frames() > 0 && !s->ended()) st = s->misuse("a session destroyed without an end of stream");
    if (s->mapped_now() > 0) st = s->misuse(fmt::format("a session destroyed with {} frames mapped", s->mapped_now()));
    if (s->registered_now() > 0)
        st = s->misuse(fmt::format("a session destroyed with {} resources registered", s->registered_now()));
    standin::log_event(
        fmt::format("close gpu={} pid={} frames={} device_frames={} busy_ms={} frame_us={} size={}x{} in_flight={}",
                    s->gpu(), getpid(), s->frames(), s->device_frames(), std::lround(s->busy_seconds() * 1000),
                    std::lround(s->frame_seconds() * 1e6), s->width(), s->height(), s->most_in_flight()));
    return st;
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
