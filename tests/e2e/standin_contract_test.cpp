// The stand-in NVENC (tests/standin) is a fair judge only if it refuses what
// NVIDIA's API forbids. These tests load it into the test process and break
// the contract on purpose, one rule at a time: each call must fail and the
// event log must name the misuse (the e2e tests on the stand-in fail on any
// such line, tests/e2e/standin_nvenc_test.cpp). Two check what it allows
// and asks: pictures in flight before their locks, input buffers kept until then.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <ffnvcodec/dynlink_cuda.h>
#include <ffnvcodec/nvEncodeAPI.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "media_tools.hpp"
#include "standin_driver_dir.hpp"

namespace ladder::test::standin_contract {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDriverDir = kStandInDriverDir;

// One session on the stand-in's GPU 0, initialized for 64x64 AV1, with one
// input buffer and one bitstream buffer; the test process's own copy of
// the stand-in, logging to a fresh file.
class StandInContract : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_NE(kDriverDir, nullptr) << "the stand-in NVIDIA driver was not built";
        log_ = fresh_dir("standin-contract") / "events.log";
        setenv("LADDER_STANDIN_LOG", log_.c_str(), 1);
        setenv("LADDER_STANDIN_STATE_DIR", (log_.parent_path() / "state").c_str(), 1);
        setenv("LADDER_STANDIN_OPEN_MS", "0", 1);
        setenv("LADDER_STANDIN_PACE", "off", 1);
        cuda_ = dlopen((fs::path(kDriverDir) / "libcuda.so.1").c_str(), RTLD_NOW | RTLD_GLOBAL);
        nvenc_ = dlopen((fs::path(kDriverDir) / "libnvidia-encode.so.1").c_str(), RTLD_NOW);
        ASSERT_TRUE(cuda_ && nvenc_) << dlerror();
        auto* cu_init = reinterpret_cast<tcuInit*>(dlsym(cuda_, "cuInit"));
        auto* cu_device = reinterpret_cast<tcuDeviceGet*>(dlsym(cuda_, "cuDeviceGet"));
        auto* cu_ctx = reinterpret_cast<tcuCtxCreate_v2*>(dlsym(cuda_, "cuCtxCreate_v2"));
        CUdevice device = 0;
        ASSERT_EQ(cu_init(0), CUDA_SUCCESS);
        ASSERT_EQ(cu_device(&device, 0), CUDA_SUCCESS);
        ASSERT_EQ(cu_ctx(&context_, 0, device), CUDA_SUCCESS);
        using Create = NVENCSTATUS NVENCAPI(NV_ENCODE_API_FUNCTION_LIST*);
        auto* create = reinterpret_cast<Create*>(dlsym(nvenc_, "NvEncodeAPICreateInstance"));
        api_.version = NV_ENCODE_API_FUNCTION_LIST_VER;
        ASSERT_EQ(create(&api_), NV_ENC_SUCCESS);
        open_session();
    }
    void TearDown() override {
        if (encoder_) api_.nvEncDestroyEncoder(encoder_);
        // The libraries stay loaded: the stand-in keeps process-wide state.
        // The settings go: later tests in this process start ladder with
        // their own (this log and no pace would be theirs).
        for (const char* name : {"LADDER_STANDIN_LOG", "LADDER_STANDIN_STATE_DIR", "LADDER_STANDIN_OPEN_MS",
                                 "LADDER_STANDIN_PACE"})
            unsetenv(name);
    }

    // idr_period: the AV1 config's idrPeriod (0: none, key frames only where forced).
    void open_session(std::uint32_t idr_period = 0) {
        NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS open{};
        open.version = NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS_VER;
        open.deviceType = NV_ENC_DEVICE_TYPE_CUDA;
        open.device = context_;
        open.apiVersion = NVENCAPI_VERSION;
        ASSERT_EQ(api_.nvEncOpenEncodeSessionEx(&open, &encoder_), NV_ENC_SUCCESS);
        NV_ENC_CONFIG config{};
        config.version = NV_ENC_CONFIG_VER;
        config.rcParams.rateControlMode = NV_ENC_PARAMS_RC_VBR;
        config.rcParams.averageBitRate = 100000;
        NV_ENC_CONFIG_AV1& av1 = config.encodeCodecConfig.av1Config;
        av1.colorPrimaries = NV_ENC_VUI_COLOR_PRIMARIES_UNSPECIFIED;
        av1.transferCharacteristics = NV_ENC_VUI_TRANSFER_CHARACTERISTIC_UNSPECIFIED;
        av1.matrixCoefficients = NV_ENC_VUI_MATRIX_COEFFS_UNSPECIFIED;
        av1.idrPeriod = idr_period;
        NV_ENC_INITIALIZE_PARAMS init{};
        init.version = NV_ENC_INITIALIZE_PARAMS_VER;
        init.encodeGUID = NV_ENC_CODEC_AV1_GUID;
        init.presetGUID = NV_ENC_PRESET_P5_GUID;
        init.encodeWidth = init.encodeHeight = 64;
        init.frameRateNum = 25;
        init.frameRateDen = 1;
        init.enablePTD = 1;
        init.encodeConfig = &config;
        ASSERT_EQ(api_.nvEncInitializeEncoder(encoder_, &init), NV_ENC_SUCCESS) << api_.nvEncGetLastErrorString(encoder_);
        input_ = another_input();
        output_ = another_output();
        ASSERT_TRUE(input_ && output_);
    }

    NV_ENC_PIC_PARAMS picture(NV_ENC_INPUT_PTR input = nullptr, NV_ENC_OUTPUT_PTR output = nullptr) const {
        NV_ENC_PIC_PARAMS pic{};
        pic.version = NV_ENC_PIC_PARAMS_VER;
        pic.inputWidth = pic.inputHeight = 64;
        pic.inputPitch = 256;
        pic.inputBuffer = input ? input : input_;
        pic.outputBitstream = output ? output : output_;
        pic.bufferFmt = NV_ENC_BUFFER_FORMAT_NV12;
        pic.pictureStruct = NV_ENC_PIC_STRUCT_FRAME;
        return pic;
    }
    NVENCSTATUS encode() {
        NV_ENC_PIC_PARAMS pic = picture();
        return api_.nvEncEncodePicture(encoder_, &pic);
    }
    NVENCSTATUS lock_and_unlock(NV_ENC_OUTPUT_PTR output = nullptr, std::uint64_t* pts = nullptr,
                                NV_ENC_PIC_TYPE* type = nullptr) {
        NV_ENC_LOCK_BITSTREAM lock{};
        lock.version = NV_ENC_LOCK_BITSTREAM_VER;
        lock.outputBitstream = output ? output : output_;
        if (const NVENCSTATUS st = api_.nvEncLockBitstream(encoder_, &lock); st != NV_ENC_SUCCESS) return st;
        if (pts) *pts = lock.outputTimeStamp;
        if (type) *type = lock.pictureType;
        return api_.nvEncUnlockBitstream(encoder_, lock.outputBitstream);
    }
    NV_ENC_INPUT_PTR another_input() {
        NV_ENC_CREATE_INPUT_BUFFER in{};
        in.version = NV_ENC_CREATE_INPUT_BUFFER_VER;
        in.width = in.height = 64;
        in.bufferFmt = NV_ENC_BUFFER_FORMAT_NV12;
        return api_.nvEncCreateInputBuffer(encoder_, &in) == NV_ENC_SUCCESS ? in.inputBuffer : nullptr;
    }
    NV_ENC_OUTPUT_PTR another_output() {
        NV_ENC_CREATE_BITSTREAM_BUFFER out{};
        out.version = NV_ENC_CREATE_BITSTREAM_BUFFER_VER;
        return api_.nvEncCreateBitstreamBuffer(encoder_, &out) == NV_ENC_SUCCESS ? out.bitstreamBuffer : nullptr;
    }
    NVENCSTATUS lock_input(NV_ENC_INPUT_PTR input) {
        NV_ENC_LOCK_INPUT_BUFFER lock{};
        lock.version = NV_ENC_LOCK_INPUT_BUFFER_VER;
        lock.inputBuffer = input;
        return api_.nvEncLockInputBuffer(encoder_, &lock);
    }
    NVENCSTATUS end_of_stream() {
        NV_ENC_PIC_PARAMS eos{};
        eos.version = NV_ENC_PIC_PARAMS_VER;
        eos.encodePicFlags = NV_ENC_PIC_FLAG_EOS;
        return api_.nvEncEncodePicture(encoder_, &eos);
    }
    // The misuse lines logged so far.
    std::string misuses() const {
        std::ifstream in(log_);
        std::string line, out;
        while (std::getline(in, line))
            if (line.rfind("misuse ", 0) == 0) out += line + "\n";
        return out;
    }

    fs::path log_;
    void* cuda_ = nullptr;
    void* nvenc_ = nullptr;
    CUcontext context_ = nullptr;
    NV_ENCODE_API_FUNCTION_LIST api_{};
    void* encoder_ = nullptr;
    NV_ENC_INPUT_PTR input_ = nullptr;
    NV_ENC_OUTPUT_PTR output_ = nullptr;
};

TEST_F(StandInContract, TheRightOrderIsNoMisuse) {
    for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(encode(), NV_ENC_SUCCESS);
        ASSERT_EQ(lock_and_unlock(), NV_ENC_SUCCESS);
    }
    ASSERT_EQ(end_of_stream(), NV_ENC_SUCCESS);
    EXPECT_EQ(api_.nvEncDestroyInputBuffer(encoder_, input_), NV_ENC_SUCCESS);
    EXPECT_EQ(api_.nvEncDestroyBitstreamBuffer(encoder_, output_), NV_ENC_SUCCESS);
    EXPECT_EQ(api_.nvEncDestroyEncoder(encoder_), NV_ENC_SUCCESS);
    encoder_ = nullptr;
    EXPECT_EQ(misuses(), "");
}

TEST_F(StandInContract, AStructureOfAnotherVersionIsRefused) {
    NV_ENC_PIC_PARAMS pic = picture();
    pic.version = NVENCAPI_STRUCT_VERSION(3);  // an older NV_ENC_PIC_PARAMS
    EXPECT_EQ(api_.nvEncEncodePicture(encoder_, &pic), NV_ENC_ERR_INVALID_VERSION);
    EXPECT_NE(misuses().find("NV_ENC_PIC_PARAMS of another version"), std::string::npos) << misuses();
}

TEST_F(StandInContract, ABitstreamIsReadOnceForEachPictureEncodedIntoIt) {
    EXPECT_EQ(lock_and_unlock(), NV_ENC_ERR_INVALID_CALL) << "nothing was encoded into it yet";
    ASSERT_EQ(encode(), NV_ENC_SUCCESS);
    EXPECT_EQ(encode(), NV_ENC_ERR_INVALID_CALL) << "its last picture was not read";
    EXPECT_NE(misuses().find("locked with no new picture"), std::string::npos) << misuses();
    EXPECT_NE(misuses().find("whose last picture was not locked"), std::string::npos) << misuses();
}

TEST_F(StandInContract, AnInputBufferIsNotEncodedWhileLocked) {
    NV_ENC_LOCK_INPUT_BUFFER lock{};
    lock.version = NV_ENC_LOCK_INPUT_BUFFER_VER;
    lock.inputBuffer = input_;
    ASSERT_EQ(api_.nvEncLockInputBuffer(encoder_, &lock), NV_ENC_SUCCESS);
    EXPECT_EQ(encode(), NV_ENC_ERR_INVALID_CALL);
    EXPECT_NE(misuses().find("while the client holds it locked"), std::string::npos) << misuses();
}

// A session's calls may come from any thread, one at a time (a slot's
// session is taken over by whichever worker holds the slot); two threads
// inside one session's calls at once is misuse, which every e2e run on the
// stand-in checks (Session::Call); no test here provokes that overlap, as
// only a sleep could line the two threads up.
TEST_F(StandInContract, ASessionGoesOnFromAnotherThreadOneAtATime) {
    ASSERT_EQ(encode(), NV_ENC_SUCCESS);
    ASSERT_EQ(lock_and_unlock(), NV_ENC_SUCCESS);
    NVENCSTATUS other = NV_ENC_ERR_GENERIC;
    std::thread([&] {
        other = encode();
        if (other == NV_ENC_SUCCESS) other = lock_and_unlock();
    }).join();
    EXPECT_EQ(other, NV_ENC_SUCCESS);
    EXPECT_EQ(misuses(), "");
}

TEST_F(StandInContract, NothingIsEncodedAfterTheEndOfStream) {
    ASSERT_EQ(end_of_stream(), NV_ENC_SUCCESS);
    EXPECT_EQ(end_of_stream(), NV_ENC_SUCCESS) << "FFmpeg sends it at its flush and again at close";
    EXPECT_EQ(misuses(), "");
    EXPECT_EQ(encode(), NV_ENC_ERR_INVALID_CALL);
    EXPECT_NE(misuses().find("after the end of stream"), std::string::npos) << misuses();
}

TEST_F(StandInContract, ASessionIsDestroyedOnlyAfterItsEndOfStream) {
    ASSERT_EQ(encode(), NV_ENC_SUCCESS);
    ASSERT_EQ(lock_and_unlock(), NV_ENC_SUCCESS);
    EXPECT_EQ(api_.nvEncDestroyEncoder(encoder_), NV_ENC_ERR_INVALID_CALL);
    encoder_ = nullptr;
    EXPECT_NE(misuses().find("without an end of stream"), std::string::npos) << misuses();
}

// A CUDA frame: registered, mapped for its picture, unmapped only once the
// picture's bitstream was locked, unregistered only when no longer mapped.
TEST_F(StandInContract, AMappedFrameIsNvencsUntilItsBitstreamIsLocked) {
    auto* cu_alloc = reinterpret_cast<tcuMemAlloc_v2*>(dlsym(cuda_, "cuMemAlloc_v2"));
    ASSERT_NE(cu_alloc, nullptr);
    CUdeviceptr frame = 0;
    ASSERT_EQ(cu_alloc(&frame, 256 * 96), CUDA_SUCCESS);
    NV_ENC_REGISTER_RESOURCE reg{};
    reg.version = NV_ENC_REGISTER_RESOURCE_VER;
    reg.resourceType = NV_ENC_INPUT_RESOURCE_TYPE_CUDADEVICEPTR;
    reg.width = reg.height = 64;
    reg.pitch = 256;
    reg.resourceToRegister = reinterpret_cast<void*>(frame);
    reg.bufferFormat = NV_ENC_BUFFER_FORMAT_NV12;
    ASSERT_EQ(api_.nvEncRegisterResource(encoder_, &reg), NV_ENC_SUCCESS);
    NV_ENC_MAP_INPUT_RESOURCE map{};
    map.version = NV_ENC_MAP_INPUT_RESOURCE_VER;
    map.registeredResource = reg.registeredResource;
    ASSERT_EQ(api_.nvEncMapInputResource(encoder_, &map), NV_ENC_SUCCESS);
    NV_ENC_PIC_PARAMS pic = picture();
    pic.inputBuffer = map.mappedResource;
    ASSERT_EQ(api_.nvEncEncodePicture(encoder_, &pic), NV_ENC_SUCCESS);
    EXPECT_EQ(api_.nvEncUnregisterResource(encoder_, reg.registeredResource), NV_ENC_ERR_INVALID_CALL);
    EXPECT_EQ(api_.nvEncUnmapInputResource(encoder_, map.mappedResource), NV_ENC_ERR_INVALID_CALL);
    EXPECT_NE(misuses().find("unregistered while mapped"), std::string::npos) << misuses();
    EXPECT_NE(misuses().find("unmapped before its picture's bitstream was locked"), std::string::npos) << misuses();
    ASSERT_EQ(lock_and_unlock(), NV_ENC_SUCCESS);
    EXPECT_EQ(api_.nvEncUnmapInputResource(encoder_, map.mappedResource), NV_ENC_SUCCESS);
    EXPECT_EQ(api_.nvEncUnregisterResource(encoder_, reg.registeredResource), NV_ENC_SUCCESS);
}

// NVIDIA's NvEncoder sample keeps several pictures in flight: each has its
// own input and bitstream buffer, and each lock returns that picture's bytes.
TEST_F(StandInContract, PicturesInFlightAreLockedInTheOrderTheyWereSent) {
    NV_ENC_INPUT_PTR inputs[] = {input_, another_input(), another_input()};
    NV_ENC_OUTPUT_PTR outputs[] = {output_, another_output(), another_output()};
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(inputs[i] && outputs[i]);
        NV_ENC_PIC_PARAMS pic = picture(inputs[i], outputs[i]);
        pic.inputTimeStamp = 10 + static_cast<std::uint64_t>(i);
        ASSERT_EQ(api_.nvEncEncodePicture(encoder_, &pic), NV_ENC_SUCCESS) << api_.nvEncGetLastErrorString(encoder_);
    }
    for (int i = 0; i < 3; ++i) {
        std::uint64_t pts = 0;
        ASSERT_EQ(lock_and_unlock(outputs[i], &pts), NV_ENC_SUCCESS);
        EXPECT_EQ(pts, 10u + static_cast<std::uint64_t>(i));
    }
    EXPECT_EQ(end_of_stream(), NV_ENC_SUCCESS);
    EXPECT_EQ(misuses(), "");
}

// An input buffer's picture is NVENC's until its bitstream is locked: the
// client may not write the buffer again before that.
TEST_F(StandInContract, AnInputBufferIsNvencsUntilItsBitstreamIsLocked) {
    ASSERT_EQ(encode(), NV_ENC_SUCCESS);
    EXPECT_EQ(lock_input(input_), NV_ENC_ERR_INVALID_CALL);
    EXPECT_NE(misuses().find("an input buffer written before its picture's bitstream was locked"), std::string::npos)
        << misuses();
    ASSERT_EQ(lock_and_unlock(), NV_ENC_SUCCESS);
    EXPECT_EQ(lock_input(input_), NV_ENC_SUCCESS);
}

// FFmpeg's av1_nvenc asks for a key frame every -g pictures through
// idrPeriod (ladder's client forces them instead): an IDR at 0, 3 and 6.
TEST_F(StandInContract, AnIdrComesEveryIdrPeriodPictures) {
    ASSERT_EQ(api_.nvEncDestroyEncoder(encoder_), NV_ENC_SUCCESS);
    encoder_ = nullptr;
    open_session(3);
    std::vector<int> idr;
    for (int i = 0; i < 7; ++i) {
        ASSERT_EQ(encode(), NV_ENC_SUCCESS) << api_.nvEncGetLastErrorString(encoder_);
        NV_ENC_PIC_TYPE type = NV_ENC_PIC_TYPE_UNKNOWN;
        ASSERT_EQ(lock_and_unlock(nullptr, nullptr, &type), NV_ENC_SUCCESS);
        if (type == NV_ENC_PIC_TYPE_IDR) idr.push_back(i);
    }
    EXPECT_EQ(idr, (std::vector<int>{0, 3, 6}));
    EXPECT_EQ(end_of_stream(), NV_ENC_SUCCESS);
}

}  // namespace
}  // namespace ladder::test::standin_contract
