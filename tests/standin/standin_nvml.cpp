// A stand-in for libnvidia-ml.so.1 that agrees with the stand-in CUDA
// driver: the same number of GPUs, names, PCI bus ids and memory
// (tests/standin/README.md). Test equipment, never installed.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "gpu/nvml_api.hpp"
#include "tests/standin/standin_settings.hpp"

namespace nvml = ladder::gpu::nvml;
namespace standin = ladder::standin;

namespace {
constexpr nvml::Return kInvalidArgument = 2;
nvml::DeviceSt* handle_for(unsigned i) { return reinterpret_cast<nvml::DeviceSt*>(static_cast<std::uintptr_t>(0x1000 + i)); }
int index_of(nvml::Device d) { return static_cast<int>(reinterpret_cast<std::uintptr_t>(d) - 0x1000); }
bool valid(nvml::Device d) { return index_of(d) >= 0 && index_of(d) < standin::settings().gpus; }
}  // namespace

extern "C" {

nvml::Return nvmlInit_v2() { return nvml::kSuccess; }
nvml::Return nvmlShutdown() { return nvml::kSuccess; }
const char* nvmlErrorString(nvml::Return r) { return r == kInvalidArgument ? "Invalid Argument" : "Unknown Error"; }
nvml::Return nvmlSystemGetDriverVersion(char* version, unsigned int length) {
    std::snprintf(version, length, "%s", "580.00 (stand-in)");
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCount_v2(unsigned int* count) {
    *count = static_cast<unsigned>(standin::settings().gpus);
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml::Device* device) {
    if (index >= static_cast<unsigned>(standin::settings().gpus)) return kInvalidArgument;
    *device = handle_for(index);
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetName(nvml::Device device, char* name, unsigned int length) {
    if (!valid(device)) return kInvalidArgument;
    std::snprintf(name, length, "%s", standin::settings().name.c_str());
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetUUID(nvml::Device device, char* uuid, unsigned int length) {
    if (!valid(device)) return kInvalidArgument;
    std::snprintf(uuid, length, "GPU-standin-%d", index_of(device));
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetPciInfo_v3(nvml::Device device, nvml::PciInfo* pci) {
    if (!valid(device)) return kInvalidArgument;
    std::memset(pci, 0, sizeof *pci);
    const std::string id = standin::pci_bus_id(index_of(device));
    std::snprintf(pci->busId, sizeof pci->busId, "%s", id.c_str());
    std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%s", id.substr(4).c_str());
    pci->bus = static_cast<unsigned>(0x17 + 0x10 * index_of(device));
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device device, nvml::Memory* memory) {
    if (!valid(device)) return kInvalidArgument;
    memory->total = standin::settings().memory_mib << 20;
    memory->free = memory->total;
    memory->used = 0;
    return nvml::kSuccess;
}

}  // extern "C"
