#pragma once
// The few NVML declarations ladder needs, written by hand: NVML (NVIDIA
// Management Library, libnvidia-ml.so.1) comes with the driver and no NVML
// header is packaged for the build. Names, values and layouts follow
// NVIDIA's nvml.h for these functions, all loaded with dlsym:
//   nvmlInit_v2, nvmlShutdown, nvmlErrorString, nvmlSystemGetDriverVersion,
//   nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetName,
//   nvmlDeviceGetUUID, nvmlDeviceGetPciInfo_v3, nvmlDeviceGetMemoryInfo.
// The _v3 PCI call matters: it fills the nvmlPciInfo_t layout below
// (busIdLegacy first, the 32-byte busId last); the original unversioned
// call used an older layout with busId first.

namespace ladder::gpu::nvml {

using Return = int;  // nvmlReturn_t (a C enum: int-sized)
constexpr Return kSuccess = 0;                   // NVML_SUCCESS
constexpr Return kErrorDriverNotLoaded = 9;      // NVML_ERROR_DRIVER_NOT_LOADED
constexpr Return kErrorLibRmVersionMismatch = 18;  // NVML_ERROR_LIB_RM_VERSION_MISMATCH

struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t

constexpr unsigned kPciBusIdLegacySize = 16;  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
constexpr unsigned kPciBusIdSize = 32;        // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
constexpr unsigned kNameSize = 96;            // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kUuidSize = 96;            // NVML_DEVICE_UUID_V2_BUFFER_SIZE
constexpr unsigned kDriverVersionSize = 80;   // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

struct PciInfo {  // nvmlPciInfo_t, as filled by nvmlDeviceGetPciInfo_v3
    char busIdLegacy[kPciBusIdLegacySize];  // "0000:17:00.0"
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[kPciBusIdSize];  // "00000000:17:00.0"
};
static_assert(sizeof(PciInfo) == 68, "nvmlPciInfo_t is 16 + 5*4 + 32 bytes");

struct Memory {  // nvmlMemory_t (v1)
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

using InitFn = Return();                                   // nvmlInit_v2
using ShutdownFn = Return();                               // nvmlShutdown
using ErrorStringFn = const char*(Return);                 // nvmlErrorString
using DriverVersionFn = Return(char*, unsigned int);       // nvmlSystemGetDriverVersion
using DeviceCountFn = Return(unsigned int*);               // nvmlDeviceGetCount_v2
using HandleByIndexFn = Return(unsigned int, Device*);     // nvmlDeviceGetHandleByIndex_v2
using NameFn = Return(Device, char*, unsigned int);        // nvmlDeviceGetName
using UuidFn = Return(Device, char*, unsigned int);        // nvmlDeviceGetUUID
using PciInfoFn = Return(Device, PciInfo*);                // nvmlDeviceGetPciInfo_v3
using MemoryInfoFn = Return(Device, Memory*);              // nvmlDeviceGetMemoryInfo

}  // namespace ladder::gpu::nvml
