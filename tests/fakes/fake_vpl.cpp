// A stand-in for the oneVPL dispatcher libvpl.so.2, so the Intel prober's
// real code (dlsym, filters, walking mfxImplDescription, the extended device
// id, merging runtimes, releasing descriptions) runs in tests on machines
// without an Intel GPU. It ignores the hardware filter on purpose, so the
// prober's own check of Impl is exercised too. Implementations:
//   0  mfx-gen   56a0/0  hardware, encodes and decodes AV1, renderD128 (Arc A770)
//   1  mfxhw64   56a0/0  hardware, same adapter through the older runtime, no AV1
//   2  mfx-gen   9a49/1  hardware, decodes AV1 only, no extended id (Tiger Lake)
//   3  software          software implementation: not a GPU
#include <cstdio>
#include <cstring>

#define ONEVPL_EXPERIMENTAL
#include <vpl/mfx.h>

struct _mfxLoader {
    int unused;
};
struct _mfxConfig {
    int unused;
};

namespace {

_mfxLoader the_loader{};
_mfxConfig the_config{};
int loads = 0;
int unloads = 0;
int handed_out = 0;
int released = 0;
bool hardware_filter = false;

mfxU32 arc_encoders[] = {MFX_CODEC_AVC, MFX_CODEC_HEVC, MFX_CODEC_AV1};
mfxU32 arc_decoders[] = {MFX_CODEC_AVC, MFX_CODEC_AV1};
mfxU32 old_encoders[] = {MFX_CODEC_AVC, MFX_CODEC_HEVC};
mfxU32 tgl_decoders[] = {MFX_CODEC_AVC, MFX_CODEC_HEVC, MFX_CODEC_AV1};

struct Impl {
    mfxImplDescription desc;
    mfxEncoderDescription::encoder enc[3];
    mfxDecoderDescription::decoder dec[3];
    mfxExtendedDeviceId ext;
    bool has_ext;
};
Impl impls[4];

void fill(Impl& impl, mfxImplType type, const char* name, const char* device, const mfxU32* enc, int n_enc,
          const mfxU32* dec, int n_dec) {
    std::memset(&impl, 0, sizeof impl);
    impl.desc.Impl = type;
    std::snprintf(impl.desc.ImplName, sizeof impl.desc.ImplName, "%s", name);
    std::snprintf(impl.desc.Dev.DeviceID, sizeof impl.desc.Dev.DeviceID, "%s", device);
    for (int i = 0; i < n_enc; ++i) impl.enc[i].CodecID = enc[i];
    for (int i = 0; i < n_dec; ++i) impl.dec[i].CodecID = dec[i];
    impl.desc.Enc.NumCodecs = static_cast<mfxU16>(n_enc);
    impl.desc.Enc.Codecs = impl.enc;
    impl.desc.Dec.NumCodecs = static_cast<mfxU16>(n_dec);
    impl.desc.Dec.Codecs = impl.dec;
}

void build() {
    fill(impls[0], MFX_IMPL_TYPE_HARDWARE, "mfx-gen", "56a0/0", arc_encoders, 3, arc_decoders, 2);
    impls[0].has_ext = true;
    impls[0].ext.DRMRenderNodeNum = 128;
    std::snprintf(impls[0].ext.DeviceName, sizeof impls[0].ext.DeviceName, "%s", "Intel(R) Arc(TM) A770 Graphics");
    fill(impls[1], MFX_IMPL_TYPE_HARDWARE, "mfxhw64", "56a0/0", old_encoders, 2, arc_decoders, 1);
    fill(impls[2], MFX_IMPL_TYPE_HARDWARE, "mfx-gen", "9a49/1", old_encoders, 2, tgl_decoders, 3);
    fill(impls[3], MFX_IMPL_TYPE_SOFTWARE, "mfx-sw", "", arc_encoders, 3, arc_decoders, 2);
}

}  // namespace

extern "C" {

// Test hooks.
int fake_vpl_balanced() { return loads == unloads && handed_out == released; }
int fake_vpl_hardware_filter_asked() { return hardware_filter; }

mfxLoader MFXLoad() {
    ++loads;
    build();
    return &the_loader;
}
void MFXUnload(mfxLoader) { ++unloads; }
mfxConfig MFXCreateConfig(mfxLoader) { return &the_config; }
mfxStatus MFXSetConfigFilterProperty(mfxConfig, const mfxU8* name, mfxVariant value) {
    if (std::strcmp(reinterpret_cast<const char*>(name), "mfxImplDescription.Impl") == 0 &&
        value.Type == MFX_VARIANT_TYPE_U32 && value.Data.U32 == MFX_IMPL_TYPE_HARDWARE)
        hardware_filter = true;
    return MFX_ERR_NONE;
}
mfxStatus MFXEnumImplementations(mfxLoader, mfxU32 i, mfxImplCapsDeliveryFormat format, mfxHDL* idesc) {
    if (i >= 4) return MFX_ERR_NOT_FOUND;
    if (format == MFX_IMPLCAPS_IMPLDESCSTRUCTURE) {
        *idesc = &impls[i].desc;
    } else if (format == MFX_IMPLCAPS_DEVICE_ID_EXTENDED && impls[i].has_ext) {
        *idesc = &impls[i].ext;
    } else {
        return MFX_ERR_UNSUPPORTED;
    }
    ++handed_out;
    return MFX_ERR_NONE;
}
mfxStatus MFXDispReleaseImplDescription(mfxLoader, mfxHDL) {
    ++released;
    return MFX_ERR_NONE;
}

}  // extern "C"
