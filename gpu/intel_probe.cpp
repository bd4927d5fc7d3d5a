#include "gpu/intel_probe.hpp"

#include <charconv>
#include <cstring>
#include <memory>

#include <fmt/format.h>

// MFX_IMPLCAPS_DEVICE_ID_EXTENDED and mfxExtendedDeviceId (the DRM render
// node) are still marked experimental in the oneVPL 2.8 headers.
#define ONEVPL_EXPERIMENTAL
#include <vpl/mfx.h>

#include "gpu/bounded_text.hpp"
#include "gpu/dynamic_library.hpp"

namespace ladder::gpu {

namespace {

// The dispatcher's entry points, called through dlsym (mfxdispatcher.h).
using LoadFn = mfxLoader();
using UnloadFn = void(mfxLoader);
using CreateConfigFn = mfxConfig(mfxLoader);
using SetFilterFn = mfxStatus(mfxConfig, const mfxU8*, mfxVariant);
using EnumFn = mfxStatus(mfxLoader, mfxU32, mfxImplCapsDeliveryFormat, mfxHDL*);
using ReleaseFn = mfxStatus(mfxLoader, mfxHDL);

struct VplFunctions {
    LoadFn* load = nullptr;
    UnloadFn* unload = nullptr;
    CreateConfigFn* create_config = nullptr;
    SetFilterFn* set_filter = nullptr;
    EnumFn* enumerate = nullptr;
    ReleaseFn* release = nullptr;
};

struct LoaderUnload {
    UnloadFn* unload;
    void operator()(_mfxLoader* loader) const { unload(loader); }
};
using Loader = std::unique_ptr<_mfxLoader, LoaderUnload>;

// One description handed out by MFXEnumImplementations, released with
// MFXDispReleaseImplDescription when done.
class Description {
public:
    Description(const VplFunctions& f, mfxLoader loader, mfxU32 index, mfxImplCapsDeliveryFormat format)
        : f_(f), loader_(loader) {
        status_ = f.enumerate(loader, index, format, &handle_);
        if (status_ != MFX_ERR_NONE) handle_ = nullptr;
    }
    Description(const Description&) = delete;
    Description& operator=(const Description&) = delete;
    ~Description() {
        if (handle_) f_.release(loader_, handle_);
    }
    mfxStatus status() const { return status_; }
    template <typename T>
    const T* as() const {
        return static_cast<const T*>(handle_);
    }

private:
    const VplFunctions& f_;
    mfxLoader loader_;
    mfxHDL handle_ = nullptr;
    mfxStatus status_ = MFX_ERR_NONE;
};

bool has_codec(const mfxEncoderDescription& enc, mfxU32 codec) {
    for (mfxU16 i = 0; enc.Codecs && i < enc.NumCodecs; ++i)
        if (enc.Codecs[i].CodecID == codec) return true;
    return false;
}

bool has_codec(const mfxDecoderDescription& dec, mfxU32 codec) {
    for (mfxU16 i = 0; dec.Codecs && i < dec.NumCodecs; ++i)
        if (dec.Codecs[i].CodecID == codec) return true;
    return false;
}

// DeviceID reads "<PCI device id>/<adapter number>", e.g. "56a0/0".
int adapter_of(const std::string& device_id) {
    const auto slash = device_id.find('/');
    if (slash == std::string::npos) return -1;
    int adapter = -1;
    const char* first = device_id.data() + slash + 1;
    const char* last = device_id.data() + device_id.size();
    const auto [end, ec] = std::from_chars(first, last, adapter);
    return ec == std::errc() && end == last ? adapter : -1;
}

IntelGpu describe(const VplFunctions& f, mfxLoader loader, mfxU32 index, const mfxImplDescription& d) {
    IntelGpu gpu;
    gpu.implementation = bounded_text(d.ImplName);
    gpu.name = gpu.implementation;
    gpu.device_id = bounded_text(d.Dev.DeviceID);
    gpu.adapter = adapter_of(gpu.device_id);
    gpu.av1_encode = has_codec(d.Enc, MFX_CODEC_AV1);
    gpu.av1_decode = has_codec(d.Dec, MFX_CODEC_AV1);
    // Older dispatchers do not know this format; the render node then stays unknown.
    const Description extended(f, loader, index, MFX_IMPLCAPS_DEVICE_ID_EXTENDED);
    if (const auto* ext = extended.as<mfxExtendedDeviceId>()) {
        if (ext->DRMRenderNodeNum != 0) gpu.render_node = fmt::format("/dev/dri/renderD{}", ext->DRMRenderNodeNum);
        if (const std::string name = bounded_text(ext->DeviceName); !name.empty()) gpu.name = name;
    }
    return gpu;
}

// Two runtimes (oneVPL's and the older Media SDK's) may both describe the
// same adapter: keep one entry with what either can do.
void add_or_merge(std::vector<IntelGpu>& gpus, IntelGpu gpu) {
    for (auto& known : gpus) {
        if (!gpu.device_id.empty() && known.device_id == gpu.device_id) {
            known.av1_encode = known.av1_encode || gpu.av1_encode;
            known.av1_decode = known.av1_decode || gpu.av1_decode;
            if (known.render_node.empty()) known.render_node = gpu.render_node;
            return;
        }
    }
    gpus.push_back(std::move(gpu));
}

std::string load(const DynamicLibrary& lib, VplFunctions& f) {
    struct Entry {
        const char* symbol;
        void** slot;
    };
    const Entry entries[] = {
        {"MFXLoad", reinterpret_cast<void**>(&f.load)},
        {"MFXUnload", reinterpret_cast<void**>(&f.unload)},
        {"MFXCreateConfig", reinterpret_cast<void**>(&f.create_config)},
        {"MFXSetConfigFilterProperty", reinterpret_cast<void**>(&f.set_filter)},
        {"MFXEnumImplementations", reinterpret_cast<void**>(&f.enumerate)},
        {"MFXDispReleaseImplDescription", reinterpret_cast<void**>(&f.release)},
    };
    for (const auto& e : entries) {
        *e.slot = lib.symbol(e.symbol);
        if (!*e.slot) return e.symbol;
    }
    return "";
}

}  // namespace

IntelInventory probe_intel(const std::string& soname) {
    IntelInventory out;
    const DynamicLibrary lib(soname);
    if (!lib.loaded()) {
        out.status = fmt::format("oneVPL library {} not found (install libvpl2 and an Intel GPU runtime)", soname);
        return out;
    }
    VplFunctions f;
    if (const std::string missing = load(lib, f); !missing.empty()) {
        out.status = fmt::format("{} lacks {} (oneVPL dispatcher too old)", soname, missing);
        return out;
    }
    const Loader loader(f.load(), LoaderUnload{f.unload});
    if (!loader) {
        out.status = "MFXLoad failed: the oneVPL dispatcher did not start";
        return out;
    }
    // Only hardware implementations: the software one (if installed) is a
    // CPU codec library, not a GPU.
    if (mfxConfig config = f.create_config(loader.get())) {
        mfxVariant impl{};
        impl.Version.Version = MFX_VARIANT_VERSION;
        impl.Type = MFX_VARIANT_TYPE_U32;
        impl.Data.U32 = MFX_IMPL_TYPE_HARDWARE;
        f.set_filter(config, reinterpret_cast<const mfxU8*>("mfxImplDescription.Impl"), impl);
    }
    for (mfxU32 i = 0;; ++i) {
        const Description desc(f, loader.get(), i, MFX_IMPLCAPS_IMPLDESCSTRUCTURE);
        const auto* d = desc.as<mfxImplDescription>();
        if (!d) break;  // MFX_ERR_NOT_FOUND past the last one
        if (d->Impl != MFX_IMPL_TYPE_HARDWARE) continue;  // should the filter not apply
        add_or_merge(out.gpus, describe(f, loader.get(), i, *d));
    }
    for (auto& gpu : out.gpus)
        if (!gpu.av1_encode) gpu.reason = "Quick Sync without AV1 encode (needs Arc, Meteor Lake or newer)";
    if (out.gpus.empty()) out.status = "no Intel GPU found through oneVPL";
    return out;
}

}  // namespace ladder::gpu
