// A stand-in for libnvcuvid.so.1 (NVDEC): the stand-in GPUs have no video
// decoder. Every entry FFmpeg's loader (nv-codec-headers'
// cuvid_load_functions) requires is here, so that a loader finds the library
// whole; cuvidGetDecoderCaps answers that no codec is supported, everything
// else CUDA_ERROR_NOT_SUPPORTED. Without it, a machine with a real NVIDIA
// driver (the lent GPU machines) would pair its real libnvcuvid with the
// stand-in libcuda, which has none of the driver's private entry points.
// Test equipment, never installed (README.md here).
#include <ffnvcodec/dynlink_cuda.h>
#include <ffnvcodec/dynlink_cuviddec.h>
#include <ffnvcodec/dynlink_nvcuvid.h>

namespace {
// nv-codec-headers' dynlink_cuda.h names only the codes FFmpeg checks.
constexpr CUresult kInvalidValue = static_cast<CUresult>(1);    // CUDA_ERROR_INVALID_VALUE
constexpr CUresult kNotSupported = static_cast<CUresult>(801);  // CUDA_ERROR_NOT_SUPPORTED
}  // namespace

extern "C" {

CUresult cuvidGetDecoderCaps(CUVIDDECODECAPS* caps) {
    if (!caps) return kInvalidValue;
    caps->bIsSupported = 0;
    caps->nNumNVDECs = 0;
    caps->nMaxWidth = caps->nMaxHeight = caps->nMinWidth = caps->nMinHeight = 0;
    return CUDA_SUCCESS;
}
CUresult cuvidCreateDecoder(CUvideodecoder*, CUVIDDECODECREATEINFO*) { return kNotSupported; }
CUresult cuvidDestroyDecoder(CUvideodecoder) { return kNotSupported; }
CUresult cuvidDecodePicture(CUvideodecoder, CUVIDPICPARAMS*) { return kNotSupported; }
CUresult cuvidGetDecodeStatus(CUvideodecoder, int, CUVIDGETDECODESTATUS*) { return kNotSupported; }
CUresult cuvidReconfigureDecoder(CUvideodecoder, CUVIDRECONFIGUREDECODERINFO*) { return kNotSupported; }
CUresult cuvidMapVideoFrame(CUvideodecoder, int, unsigned int*, unsigned int*, CUVIDPROCPARAMS*) {
    return kNotSupported;
}
CUresult cuvidUnmapVideoFrame(CUvideodecoder, unsigned int) { return kNotSupported; }
CUresult cuvidMapVideoFrame64(CUvideodecoder, int, unsigned long long*, unsigned int*, CUVIDPROCPARAMS*) {
    return kNotSupported;
}
CUresult cuvidUnmapVideoFrame64(CUvideodecoder, unsigned long long) { return kNotSupported; }
CUresult cuvidCtxLockCreate(CUvideoctxlock*, CUcontext) { return kNotSupported; }
CUresult cuvidCtxLockDestroy(CUvideoctxlock) { return kNotSupported; }
CUresult cuvidCtxLock(CUvideoctxlock, unsigned int) { return kNotSupported; }
CUresult cuvidCtxUnlock(CUvideoctxlock, unsigned int) { return kNotSupported; }
CUresult cuvidCreateVideoSource(CUvideosource*, const char*, CUVIDSOURCEPARAMS*) { return kNotSupported; }
CUresult cuvidCreateVideoSourceW(CUvideosource*, const wchar_t*, CUVIDSOURCEPARAMS*) { return kNotSupported; }
CUresult cuvidDestroyVideoSource(CUvideosource) { return kNotSupported; }
CUresult cuvidSetVideoSourceState(CUvideosource, cudaVideoState) { return kNotSupported; }
cudaVideoState cuvidGetVideoSourceState(CUvideosource) { return cudaVideoState_Error; }
CUresult cuvidGetSourceVideoFormat(CUvideosource, CUVIDEOFORMAT*, unsigned int) { return kNotSupported; }
CUresult cuvidGetSourceAudioFormat(CUvideosource, CUAUDIOFORMAT*, unsigned int) { return kNotSupported; }
CUresult cuvidCreateVideoParser(CUvideoparser*, CUVIDPARSERPARAMS*) { return kNotSupported; }
CUresult cuvidParseVideoData(CUvideoparser, CUVIDSOURCEDATAPACKET*) { return kNotSupported; }
CUresult cuvidDestroyVideoParser(CUvideoparser) { return kNotSupported; }

}  // extern "C"
