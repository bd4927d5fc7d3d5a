#include "engine/schedule/device_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "av/av_error.hpp"
#include "av/hw_device.hpp"
#include "engine/base/errors.hpp"
#include "gpu/cpu_info.hpp"

extern "C" {
#include <libavcodec/codec_desc.h>
}

namespace ladder::engine {

namespace {

// Opens a real encoder on the candidate; returns why it could not.
std::string probe_candidate(const gpu::GpuCandidate& c, const EncoderSettings& settings, const EncoderFactory& factory) {
    const gpu::EncoderSlot slot = gpu::make_gpu_slots({c}, 1, 0).front();
    try {
        auto backend = factory ? factory(slot, settings) : make_encoder_backend(slot, settings);
        backend->probe();
        return "";
    } catch (const std::exception& e) {
        return fmt::format("its encoder would not open ({})", e.what());
    }
}

const char* nvdec_codec(AVCodecID id) {
    switch (id) {
        case AV_CODEC_ID_AV1: return "av1";
        case AV_CODEC_ID_HEVC: return "hevc";
        case AV_CODEC_ID_H264: return "h264";
        default: return nullptr;
    }
}

// Why NVDEC on this GPU cannot decode the source (empty when it can).
std::string nvdec_problem(const gpu::NvidiaGpu& g, const gpu::DeviceInventory& inv, const SourceInfo& src) {
    if (!inv.ffmpeg_nvdec) return "this FFmpeg build has no CUDA hwaccel or no scale_cuda filter";
    const AVCodecDescriptor* desc = avcodec_descriptor_get_by_name(src.codec_name.c_str());
    const char* codec = desc ? nvdec_codec(desc->id) : nullptr;
    if (!codec) return fmt::format("ladder decodes only AV1, HEVC and H.264 with NVDEC, not {}", src.codec_name);
    // The normalizer turns and deinterlaces with CPU filters only.
    if (src.rotation != 0)
        return fmt::format("the source is rotated by {} degrees, which ladder applies on the CPU", src.rotation);
    if (src.interlaced) return "the source is interlaced, which ladder deinterlaces on the CPU";
    if (src.to_limited_range)
        return "the source is full range, which ladder converts to limited range on the CPU";
    if (!g.nvdec_status.empty()) return g.nvdec_status;
    const auto caps = std::find_if(g.nvdec.begin(), g.nvdec.end(), [&](const gpu::DecodeCaps& c) {
        return c.codec == codec && c.bit_depth == src.bit_depth;
    });
    if (caps == g.nvdec.end() || !caps->supported)
        return fmt::format("its NVDEC cannot decode {}-bit {}", src.bit_depth, codec);
    if (src.width > caps->max_width || src.height > caps->max_height)
        return fmt::format("its NVDEC decodes {} up to {}x{}, the source is {}x{}", codec, caps->max_width,
                           caps->max_height, src.width, src.height);
    if (!av::has_hw_decoder(desc->id, AV_HWDEVICE_TYPE_CUDA))
        return fmt::format("this FFmpeg build has no {} NVDEC hwaccel", codec);
    if (g.cuda_ordinal < 0) return "CUDA does not see this GPU";
    return "";
}

std::string describe(const gpu::NvidiaGpu& g) {
    return gpu::GpuCandidate{g.index, gpu::DeviceKind::nvidia, g.name, "", "", "", {}}.describe();
}

// The policy's first NVIDIA GPU; --policy cpu encodes on no GPU but may
// still decode on one when asked to.
const gpu::NvidiaGpu* first_nvidia(const DeviceRequest& req, const gpu::DeviceInventory& inv,
                                   const gpu::PolicySelection& selection) {
    for (const auto& c : selection.gpus) {
        if (c.kind != gpu::DeviceKind::nvidia) continue;
        auto it = std::find_if(inv.nvidia.begin(), inv.nvidia.end(), [&](const auto& g) { return g.index == c.index; });
        if (it != inv.nvidia.end()) return &*it;
    }
    if (req.policy.kind == gpu::PolicyKind::cpu && !inv.nvidia.empty()) return &inv.nvidia.front();
    return nullptr;
}

bool has_slot_on(const std::vector<gpu::EncoderSlot>& slots, int ordinal) {
    return std::any_of(slots.begin(), slots.end(), [&](const gpu::EncoderSlot& s) {
        return s.kind == gpu::DeviceKind::nvidia && s.device == std::to_string(ordinal);
    });
}

void plan_decode(const DeviceRequest& req, const gpu::DeviceInventory& inv, const gpu::PolicySelection& selection,
                 const SourceInfo& src, DevicePlan& plan) {
    if (req.decode == DecodeMode::cpu) return;
    const gpu::NvidiaGpu* gpu = first_nvidia(req, inv, selection);
    std::string problem;
    if (!gpu) {
        if (req.decode == DecodeMode::automatic) return;
        problem = inv.nvidia.empty() ? fmt::format("there is no NVIDIA GPU{}",
                                                   inv.nvidia_status.empty() ? "" : " (" + inv.nvidia_status + ")")
                                     : fmt::format("--policy {} selects no NVIDIA GPU", req.policy.text);
        throw InputError(fmt::format("--decode nvdec: {}: use --decode cpu", problem));
    }
    problem = nvdec_problem(*gpu, inv, src);
    av::BufferRefPtr context;
    if (problem.empty()) {
        try {
            context = av::shared_hw_device(AV_HWDEVICE_TYPE_CUDA, std::to_string(gpu->cuda_ordinal));
        } catch (const av::AvError& e) {
            problem = fmt::format("no CUDA context ({})", e.what());
        }
    }
    if (!problem.empty()) {
        if (req.decode == DecodeMode::nvdec)
            throw InputError(fmt::format("--decode nvdec: {}: {}: use --decode cpu", describe(*gpu), problem));
        plan.notes.emplace_back(NoteLevel::info, fmt::format("decoding on the CPU: {}: {}", describe(*gpu), problem));
        return;
    }
    // The policy's other GPUs whose NVDEC can decode the source.
    std::vector<const gpu::NvidiaGpu*> decoders{gpu};
    for (const auto& c : selection.gpus) {
        if (c.kind != gpu::DeviceKind::nvidia || c.index == gpu->index) continue;
        auto it = std::find_if(inv.nvidia.begin(), inv.nvidia.end(), [&](const auto& g) { return g.index == c.index; });
        if (it != inv.nvidia.end() && it->cuda_ordinal >= 0 && nvdec_problem(*it, inv, src).empty())
            decoders.push_back(&*it);
    }
    std::vector<int> ordinals;
    for (const auto* g : decoders) ordinals.push_back(g->cuda_ordinal);
    plan.keep_frames_on_gpu = frames_can_stay(plan.slots, ordinals);
    plan.decode_gpus.push_back(
        {std::move(context), describe(*gpu) + " (NVDEC)", gpu->cuda_ordinal, gpu->memory_total_bytes});
    for (std::size_t i = 1; i < decoders.size(); ++i) {
        const gpu::NvidiaGpu& g = *decoders[i];
        const bool sessions = has_slot_on(plan.slots, g.cuda_ordinal);
        if (plan.keep_frames_on_gpu && !sessions) continue;  // its chunks would find no session
        try {
            plan.decode_gpus.push_back({av::shared_hw_device(AV_HWDEVICE_TYPE_CUDA, std::to_string(g.cuda_ordinal)),
                                        describe(g) + " (NVDEC)", g.cuda_ordinal, g.memory_total_bytes});
        } catch (const av::AvError&) {
            // Its lanes go to the others; its sessions, with no lane of their
            // own, then take frames from the host.
            if (sessions) plan.keep_frames_on_gpu = false;
        }
    }
}

// `--policy gpu:I,J` opens nothing on the other GPUs, not even to ask what
// they can do (NVIDIA indices are the first ones, in NVML order).
gpu::NvencProbeScope nvenc_probe_scope(const gpu::EncodePolicy& policy) {
    if (policy.kind != gpu::PolicyKind::gpu_list) return {};
    return [gpus = policy.gpus](int index) { return std::find(gpus.begin(), gpus.end(), index) != gpus.end(); };
}

}  // namespace

bool frames_can_stay(const std::vector<gpu::EncoderSlot>& slots, const std::vector<int>& decoding_gpus) {
    if (slots.empty() || decoding_gpus.empty() || !has_slot_on(slots, decoding_gpus.front())) return false;
    return std::all_of(slots.begin(), slots.end(), [&](const gpu::EncoderSlot& s) {
        return s.kind == gpu::DeviceKind::nvidia &&
               std::any_of(decoding_gpus.begin(), decoding_gpus.end(),
                           [&](int ordinal) { return std::to_string(ordinal) == s.device; });
    });
}

DevicePlan plan_devices(const DeviceRequest& req, const SourceInfo& src, const EncoderSettings& probe_settings) {
    DevicePlan plan;
    const gpu::CpuInfo cpu = gpu::read_cpu_info();
    if (req.policy.kind == gpu::PolicyKind::cpu && req.decode != DecodeMode::nvdec) {
        // Nothing GPU-related is loaded or touched.
        plan.slots = gpu::make_cpu_slots(req.cpu_mix, cpu, req.cpu_threads);
        return plan;
    }
    const gpu::DeviceInventory inv = req.inventory ? req.inventory() : gpu::probe_devices({}, nvenc_probe_scope(req.policy));
    plan.steps.emplace_back("gpu_inventory", std::chrono::steady_clock::now());
    gpu::PolicySelection selection;
    if (req.policy.wants_gpus()) {
        try {
            selection = gpu::select_gpus(req.policy, inv);
        } catch (const std::invalid_argument& e) {
            throw InputError(e.what());
        }
    }
    std::vector<gpu::GpuCandidate> usable;
    // A test encoder is opened on one NVIDIA GPU of each model, not on every
    // one: the inventory has already opened an NVENC session on each GPU and
    // found AV1 there, and what FFmpeg's encoder adds to that (its av1_nvenc
    // working with this driver) is the same for GPUs of one model. Each open
    // holds FFmpeg's codec-open lock for a session start (0.3 s on an H200),
    // so on an 8-GPU node this takes about 2 s off the pre-flight. A failed
    // open says nothing about the model: its next GPU is tried as well.
    std::set<std::string> models_opened;
    for (auto& c : selection.gpus) {
        const bool vouched = c.kind == gpu::DeviceKind::nvidia && models_opened.count(c.name) > 0;
        if (c.problem.empty() && !vouched) {
            c.problem = probe_candidate(c, probe_settings, req.encoder_factory);
            ++plan.encoder_probes;
            if (c.problem.empty() && c.kind == gpu::DeviceKind::nvidia) models_opened.insert(c.name);
        }
        if (c.problem.empty()) {
            usable.push_back(c);
        } else {
            plan.dropped.push_back(fmt::format("{}: {}", c.describe(), c.problem));
            if (req.policy.requires_gpu() || req.policy.kind == gpu::PolicyKind::automatic)
                plan.notes.emplace_back(NoteLevel::warning,
                                        fmt::format("{} cannot encode AV1 and is not used: {}", c.describe(), c.problem));
        }
    }
    plan.steps.emplace_back("gpu_encoder_probes", std::chrono::steady_clock::now());
    if (usable.empty() && req.policy.requires_gpu())
        throw InputError(fmt::format("--policy {}: no GPU can encode AV1 here ({}): see 'ladder devices', or use "
                                     "--policy auto or --policy cpu to encode on the CPU",
                                     req.policy.text, gpu::describe_unusable(selection)));
    plan.slots = gpu::make_gpu_slots(usable, req.sessions_per_gpu, 0);
    std::size_t wanted = 0;
    for (const auto& c : usable)
        wanted += static_cast<std::size_t>(gpu::sessions_wanted(c, req.sessions_per_gpu));
    if (plan.slots.size() < wanted)
        plan.notes.emplace_back(NoteLevel::info,
                                fmt::format("{} GPU encoder sessions, not {}: the NVIDIA driver caps GeForce cards at {} "
                                            "NVENC sessions open at once, counted over all of them",
                                            plan.slots.size(), wanted, gpu::shared_session_cap(usable).value_or(0)));
    if (usable.empty() || req.cpu_requested) {
        auto cpu_slots = gpu::make_cpu_slots(req.cpu_mix, cpu, req.cpu_threads);
        for (auto& s : cpu_slots) {
            s.id = static_cast<int>(plan.slots.size());
            plan.slots.push_back(std::move(s));
        }
        if (usable.empty() && req.policy.kind == gpu::PolicyKind::automatic)
            plan.notes.emplace_back(selection.gpus.empty() ? NoteLevel::info : NoteLevel::warning,
                          fmt::format("--policy auto: no GPU can encode AV1 here ({}); encoding on the CPU",
                                      gpu::describe_unusable(selection)));
    }
    plan_decode(req, inv, selection, src, plan);
    plan.steps.emplace_back("decode_devices", std::chrono::steady_clock::now());
    return plan;
}

}  // namespace ladder::engine
