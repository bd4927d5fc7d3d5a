#include "gpu/encode_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace ladder::gpu {

namespace {

constexpr const char* kAccepted = "auto, all-gpus, gpu:I[,J...], nvidia, intel or cpu";

std::vector<int> parse_gpu_list(const std::string& text, const std::string& whole) {
    std::vector<int> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        int value = -1;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || value < 0)
            throw std::invalid_argument(fmt::format(
                "--policy {}: '{}' is not a GPU index (use gpu:0 or gpu:0,2 with indices from 'ladder devices')",
                whole, item));
        if (std::find(out.begin(), out.end(), value) != out.end())
            throw std::invalid_argument(fmt::format("--policy {}: GPU {} is named twice", whole, value));
        out.push_back(value);
        pos = comma + 1;
    }
    return out;
}

std::string nvidia_problem(const NvidiaGpu& g, const DeviceInventory& inv, NvencClient client) {
    if (!g.nvenc.can_encode_av1())
        return g.nvenc.reason.empty() ? std::string("NVENC cannot encode AV1") : g.nvenc.reason;
    if (client == NvencClient::ffmpeg && !inv.ffmpeg_av1_nvenc)
        return fmt::format("this FFmpeg build ({}) has no av1_nvenc encoder (needs FFmpeg 6.0+ built with "
                           "nv-codec-headers 12)",
                           inv.ffmpeg_version);
    if (g.cuda_ordinal < 0) return "CUDA does not see this GPU";
    return "";
}

std::string intel_problem(const IntelGpu& g, const DeviceInventory& inv) {
    if (!g.av1_encode) return g.reason.empty() ? std::string("no AV1 encode in oneVPL's capabilities") : g.reason;
    if (!inv.ffmpeg_av1_qsv)
        return fmt::format("this FFmpeg build ({}) has no av1_qsv encoder (needs FFmpeg 6.0+ built with oneVPL)",
                           inv.ffmpeg_version);
    return "";
}

GpuCandidate candidate(const NvidiaGpu& g, const DeviceInventory& inv, NvencClient client) {
    return GpuCandidate{g.index,
                        DeviceKind::nvidia,
                        g.name,
                        std::string(gpu_encoder_traits(DeviceKind::nvidia, client)->name),
                        g.cuda_ordinal >= 0 ? std::to_string(g.cuda_ordinal) : "",
                        nvidia_problem(g, inv, client),
                        g.nvenc.session_limit,
                        g.nvenc.engines};
}

GpuCandidate candidate(const IntelGpu& g, const DeviceInventory& inv) {
    return GpuCandidate{g.index,         DeviceKind::intel,     g.name, std::string(gpu_encoder_traits(DeviceKind::intel)->name),
                        g.render_node, intel_problem(g, inv), {}};
}

std::string absent_line(const char* family, const std::string& status) {
    return fmt::format("no {} GPU{}", family, status.empty() ? std::string() : ": " + status);
}

}  // namespace

EncodePolicy parse_encode_policy(const std::string& text) {
    EncodePolicy p;
    p.text = text;
    if (text == "auto") p.kind = PolicyKind::automatic;
    else if (text == "all-gpus") p.kind = PolicyKind::all_gpus;
    else if (text == "nvidia") p.kind = PolicyKind::nvidia;
    else if (text == "intel") p.kind = PolicyKind::intel;
    else if (text == "cpu") p.kind = PolicyKind::cpu;
    else if (text.rfind("gpu:", 0) == 0) {
        p.kind = PolicyKind::gpu_list;
        p.gpus = parse_gpu_list(text.substr(4), text);
    } else {
        throw std::invalid_argument(fmt::format("--policy {}: unknown policy; use {}", text, kAccepted));
    }
    return p;
}

std::string GpuCandidate::describe() const {
    const bool vendor_in_name = name.rfind(kind == DeviceKind::intel ? "Intel" : "NVIDIA", 0) == 0;
    return fmt::format("GPU {} {}{}", index, vendor_in_name ? "" : (kind == DeviceKind::intel ? "Intel " : "NVIDIA "),
                       name);
}

PolicySelection select_gpus(const EncodePolicy& policy, const DeviceInventory& inv) {
    PolicySelection sel;
    const bool nvidia = policy.kind == PolicyKind::automatic || policy.kind == PolicyKind::all_gpus ||
                        policy.kind == PolicyKind::nvidia;
    const bool intel = policy.kind == PolicyKind::automatic || policy.kind == PolicyKind::all_gpus ||
                       policy.kind == PolicyKind::intel;
    if (nvidia) {
        for (const auto& g : inv.nvidia) sel.gpus.push_back(candidate(g, inv, policy.nvenc));
        if (inv.nvidia.empty()) sel.absent.push_back(absent_line("NVIDIA", inv.nvidia_status));
    }
    if (intel) {
        for (const auto& g : inv.intel) sel.gpus.push_back(candidate(g, inv));
        if (inv.intel.empty()) sel.absent.push_back(absent_line("Intel", inv.intel_status));
    }
    if (policy.kind == PolicyKind::gpu_list) {
        for (int index : policy.gpus) {
            auto nv = std::find_if(inv.nvidia.begin(), inv.nvidia.end(), [&](const auto& g) { return g.index == index; });
            auto in = std::find_if(inv.intel.begin(), inv.intel.end(), [&](const auto& g) { return g.index == index; });
            if (nv != inv.nvidia.end()) sel.gpus.push_back(candidate(*nv, inv, policy.nvenc));
            else if (in != inv.intel.end()) sel.gpus.push_back(candidate(*in, inv));
            else {
                const int count = static_cast<int>(inv.nvidia.size() + inv.intel.size());
                throw std::invalid_argument(fmt::format(
                    "--policy {}: there is no GPU {} on this machine ({}); run 'ladder devices' to see the indices",
                    policy.text, index,
                    count == 0 ? std::string("it has no GPU ladder can see")
                               : fmt::format("GPUs are numbered 0 to {}", count - 1)));
            }
        }
    }
    return sel;
}

std::optional<int> shared_session_cap(const std::vector<GpuCandidate>& candidates) {
    std::optional<int> cap;
    for (const auto& c : candidates)
        if (c.shared_session_limit) cap = std::min(cap.value_or(*c.shared_session_limit), *c.shared_session_limit);
    return cap;
}

int sessions_wanted(const GpuCandidate& candidate, int sessions_per_gpu) {
    return std::max(1, sessions_per_gpu > 0 ? sessions_per_gpu : candidate.engines);
}

std::vector<int> sessions_per_candidate(const std::vector<GpuCandidate>& usable, int sessions_per_gpu) {
    std::vector<int> sessions;
    for (const auto& c : usable) sessions.push_back(sessions_wanted(c, sessions_per_gpu));
    const std::optional<int> cap = shared_session_cap(usable);
    std::vector<std::size_t> capped;
    int capped_wanted = 0;
    for (std::size_t i = 0; i < usable.size(); ++i)
        if (usable[i].shared_session_limit) {
            capped.push_back(i);
            capped_wanted += sessions[i];
        }
    if (!cap || capped_wanted <= *cap) return sessions;
    // The GPUs under the cap take its sessions in turn, so they share it
    // evenly; one left with none gets no slot.
    for (std::size_t i : capped) sessions[i] = 0;
    for (int s = 0; s < *cap; ++s) ++sessions[capped[static_cast<std::size_t>(s) % capped.size()]];
    return sessions;
}

std::vector<EncoderSlot> make_gpu_slots(const std::vector<GpuCandidate>& usable, int sessions_per_gpu, int first_id) {
    std::vector<EncoderSlot> slots;
    const std::vector<int> sessions = sessions_per_candidate(usable, sessions_per_gpu);
    for (std::size_t i = 0; i < usable.size(); ++i) {
        const GpuCandidate& c = usable[i];
        for (int s = 0; s < sessions[i]; ++s) {
            EncoderSlot slot;
            slot.id = first_id + static_cast<int>(slots.size());
            slot.kind = c.kind;
            slot.set_encoder(c.encoder);
            slot.device_index = c.index;
            slot.device = c.device;
            slot.threads = 1;
            slot.session_capped = c.shared_session_limit.has_value();
            const std::string_view short_name = slot.traits().short_name;
            slot.label = s == 0 ? fmt::format("gpu{}:{}", c.index, short_name)
                                : fmt::format("gpu{}:{}.{}", c.index, short_name, s + 1);
            slots.push_back(std::move(slot));
        }
    }
    return slots;
}

std::string describe_unusable(const PolicySelection& selection) {
    std::string out;
    auto add = [&out](const std::string& line) { out += (out.empty() ? "" : "; ") + line; };
    for (const auto& c : selection.gpus)
        if (!c.problem.empty()) add(fmt::format("{}: {}", c.describe(), c.problem));
    for (const auto& a : selection.absent) add(a);
    return out;
}

}  // namespace ladder::gpu
