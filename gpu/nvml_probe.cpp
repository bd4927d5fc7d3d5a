#include "gpu/nvml_probe.hpp"

#include <cstring>

#include <fmt/format.h>

#include "gpu/bounded_text.hpp"
#include "gpu/dynamic_library.hpp"
#include "gpu/nvml_api.hpp"

namespace ladder::gpu {

namespace {

struct NvmlFunctions {
    nvml::InitFn* init = nullptr;
    nvml::ShutdownFn* shutdown = nullptr;
    nvml::ErrorStringFn* error_string = nullptr;
    nvml::DriverVersionFn* driver_version = nullptr;
    nvml::DeviceCountFn* device_count = nullptr;
    nvml::HandleByIndexFn* handle_by_index = nullptr;
    nvml::NameFn* name = nullptr;
    nvml::UuidFn* uuid = nullptr;
    nvml::PciInfoFn* pci_info = nullptr;
    nvml::MemoryInfoFn* memory_info = nullptr;
};

// Returns the name of the first missing symbol, or "" when all were found.
std::string load(const DynamicLibrary& lib, NvmlFunctions& f) {
    struct Entry {
        const char* symbol;
        void** slot;
    };
    const Entry entries[] = {
        {"nvmlInit_v2", reinterpret_cast<void**>(&f.init)},
        {"nvmlShutdown", reinterpret_cast<void**>(&f.shutdown)},
        {"nvmlErrorString", reinterpret_cast<void**>(&f.error_string)},
        {"nvmlSystemGetDriverVersion", reinterpret_cast<void**>(&f.driver_version)},
        {"nvmlDeviceGetCount_v2", reinterpret_cast<void**>(&f.device_count)},
        {"nvmlDeviceGetHandleByIndex_v2", reinterpret_cast<void**>(&f.handle_by_index)},
        {"nvmlDeviceGetName", reinterpret_cast<void**>(&f.name)},
        {"nvmlDeviceGetUUID", reinterpret_cast<void**>(&f.uuid)},
        {"nvmlDeviceGetPciInfo_v3", reinterpret_cast<void**>(&f.pci_info)},
        {"nvmlDeviceGetMemoryInfo", reinterpret_cast<void**>(&f.memory_info)},
    };
    for (const auto& e : entries) {
        *e.slot = lib.symbol(e.symbol);
        if (!*e.slot) return e.symbol;
    }
    return "";
}

// nvmlInit_v2 ... nvmlShutdown: NVML counts inits, so every successful init
// is paired with exactly one shutdown, also when probing throws.
class NvmlSession {
public:
    explicit NvmlSession(const NvmlFunctions& f) : f_(f), result_(f.init()) {}
    NvmlSession(const NvmlSession&) = delete;
    NvmlSession& operator=(const NvmlSession&) = delete;
    ~NvmlSession() {
        if (result_ == nvml::kSuccess) f_.shutdown();
    }
    nvml::Return result() const { return result_; }

private:
    const NvmlFunctions& f_;
    nvml::Return result_;
};

std::string describe(const NvmlFunctions& f, nvml::Return r) {
    const char* text = f.error_string ? f.error_string(r) : nullptr;
    return fmt::format("{} (NVML error {})", text ? text : "unknown error", r);
}

}  // namespace

NvmlInventory probe_nvml(const std::string& soname) {
    NvmlInventory out;
    const DynamicLibrary lib(soname);
    if (!lib.loaded()) {
        out.status = fmt::format("NVML library {} not found (no NVIDIA driver installed)", soname);
        return out;
    }
    NvmlFunctions f;
    if (const std::string missing = load(lib, f); !missing.empty()) {
        out.status = fmt::format("{} lacks {} (NVIDIA driver too old)", soname, missing);
        return out;
    }
    const NvmlSession session(f);
    if (session.result() != nvml::kSuccess) {
        const char* hint = session.result() == nvml::kErrorDriverNotLoaded ? ": the NVIDIA kernel driver is not loaded"
                           : session.result() == nvml::kErrorLibRmVersionMismatch
                               ? ": driver library and kernel module versions differ (reboot or reload the driver)"
                               : "";
        out.status = fmt::format("nvmlInit failed: {}{}", describe(f, session.result()), hint);
        return out;
    }
    char version[nvml::kDriverVersionSize] = {};
    if (f.driver_version(version, sizeof version) == nvml::kSuccess) out.driver_version = bounded_text(version);

    unsigned int count = 0;
    if (const nvml::Return r = f.device_count(&count); r != nvml::kSuccess) {
        out.status = fmt::format("nvmlDeviceGetCount failed: {}", describe(f, r));
        return out;
    }
    std::string last_error;
    for (unsigned int i = 0; i < count; ++i) {
        nvml::Device device = nullptr;
        if (const nvml::Return r = f.handle_by_index(i, &device); r != nvml::kSuccess) {
            // A GPU this process may not use (permissions, a lost GPU) is left out.
            last_error = fmt::format("GPU {}: {}", i, describe(f, r));
            continue;
        }
        NvidiaGpu gpu;
        gpu.nvml_index = static_cast<int>(i);
        char name[nvml::kNameSize] = {};
        gpu.name = f.name(device, name, sizeof name) == nvml::kSuccess ? bounded_text(name) : "unknown NVIDIA GPU";
        char uuid[nvml::kUuidSize] = {};
        if (f.uuid(device, uuid, sizeof uuid) == nvml::kSuccess) gpu.uuid = bounded_text(uuid);
        nvml::PciInfo pci{};
        if (f.pci_info(device, &pci) == nvml::kSuccess) gpu.pci_bus_id = bounded_text(pci.busId);
        nvml::Memory memory{};
        if (f.memory_info(device, &memory) == nvml::kSuccess) gpu.memory_total_bytes = memory.total;
        out.gpus.push_back(std::move(gpu));
    }
    if (out.gpus.empty())
        out.status = last_error.empty() ? "NVML found no NVIDIA GPU" : "NVML could not open any GPU: " + last_error;
    return out;
}

}  // namespace ladder::gpu
