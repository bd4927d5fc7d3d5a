// Test equipment, never installed: an LD_PRELOAD library that makes a real
// encoder's host process crash, abort, exit or hang on a chosen frame, the
// way a buggy encoder library would, or makes the encoder hand back that
// frame's packet cut in half (a frame no decoder reads, as SVT-AV1 2.3's
// thread race once wrote). It wraps libavcodec's avcodec_send_frame and
// avcodec_receive_packet, so the encoder (SVT-AV1, libaom) is real and so is
// the crash: with ladder's encoder processes only the process that encodes
// the frame dies; with --isolation none, ladder itself does.
//
// Configured by its own variables (read here, never by ladder):
//   LADDER_TEST_CRASH_ACTION   segv | abort | exit | hang | corrupt
//   LADDER_TEST_CRASH_FRAME    the frame number in the rung (a chunk's first
//                              frame names the chunk); corrupt: the packet
//                              whose pts is that frame's
//   LADDER_TEST_CRASH_SIZE     WxH: only frames of this size (one rung)
//   LADDER_TEST_CRASH_ENCODERS comma list of encoder names (default: all)
//   LADDER_TEST_CRASH_ONCE     a file path: only the process that creates it
//                              fails (once per run), the others go on
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace {

using SendFrame = int (*)(AVCodecContext*, const AVFrame*);
using ReceivePacket = int (*)(AVCodecContext*, AVPacket*);

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

bool listed(const char* list, const char* name) {
    if (!list) return true;
    const std::string wanted = std::string(",") + list + ",";
    return name && wanted.find(std::string(",") + name + ",") != std::string::npos;
}

// The chosen frame of the chosen rung, for this action.
bool chosen(const AVCodecContext* ctx, const char* wanted, std::int64_t pts, int width, int height) {
    const char* action = env("LADDER_TEST_CRASH_ACTION");
    const char* at = env("LADDER_TEST_CRASH_FRAME");
    if (!action || !at || width <= 0) return false;
    if ((std::strcmp(action, "corrupt") == 0) != (std::strcmp(wanted, "corrupt") == 0)) return false;
    if (pts != std::atoll(at)) return false;
    if (const char* size = env("LADDER_TEST_CRASH_SIZE")) {
        int w = 0, h = 0;
        if (std::sscanf(size, "%dx%d", &w, &h) != 2 || width != w || height != h) return false;
    }
    if (!listed(env("LADDER_TEST_CRASH_ENCODERS"), ctx && ctx->codec ? ctx->codec->name : nullptr)) return false;
    if (const char* once = env("LADDER_TEST_CRASH_ONCE")) {
        const int fd = ::open(once, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0) return false;  // another process failed already
        ::close(fd);
    }
    return true;
}

[[noreturn]] void fail(const char* action) {
    if (std::strcmp(action, "abort") == 0) std::abort();
    if (std::strcmp(action, "exit") == 0) ::_exit(3);
    if (std::strcmp(action, "hang") == 0)
        for (;;) ::pause();
    volatile int* nowhere = nullptr;
    *nowhere = 1;  // segv: a null write, as a buggy encoder would
    std::abort();
}

}  // namespace

extern "C" int avcodec_send_frame(AVCodecContext* ctx, const AVFrame* frame) {
    static const auto real = reinterpret_cast<SendFrame>(::dlsym(RTLD_NEXT, "avcodec_send_frame"));
    if (frame && chosen(ctx, "fail", frame->pts, frame->width, frame->height)) fail(env("LADDER_TEST_CRASH_ACTION"));
    return real(ctx, frame);
}

// The chosen frame's packet keeps its first half: its OBUs run past the
// end, which every AV1 decoder refuses.
extern "C" int avcodec_receive_packet(AVCodecContext* ctx, AVPacket* packet) {
    static const auto real = reinterpret_cast<ReceivePacket>(::dlsym(RTLD_NEXT, "avcodec_receive_packet"));
    const int ret = real(ctx, packet);
    if (ret == 0 && av_codec_is_encoder(ctx->codec) && packet->size > 16 &&
        chosen(ctx, "corrupt", packet->pts, ctx->width, ctx->height))
        av_shrink_packet(packet, packet->size / 2);
    return ret;
}
