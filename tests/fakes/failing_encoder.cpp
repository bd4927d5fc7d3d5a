// Test equipment, never installed: an LD_PRELOAD library that makes the
// real encoder of chosen slots fail the way an encoder library reports a
// failure, through libavcodec's return codes. It wraps avcodec_open2,
// avcodec_send_frame and avcodec_receive_packet; ladder itself knows
// nothing of it.
//
// A slot is recognised by the name of the thread that runs its encoder
// (ladder names it after the slot's label, engine/base/thread_name.hpp), so the
// same faults hit an encoder process (the default) and ladder's own worker
// thread (--isolation none).
//
// Configured by its own variables (read here, never by ladder):
//   LADDER_TEST_FAIL_SLOTS  "<slot label>=<open|mid>[@S][*N];..."
//     open: the encoder does not open (avcodec_open2 fails).
//     mid:  the encoder opens and takes half the chunk's frames; then, while
//           it still holds frames it was sent and has not returned as
//           packets, avcodec_send_frame fails. No end of stream is sent:
//           ladder's error path gets an encoder with frames in flight.
//     @S: the first S chunks on the slot succeed. *N: only N chunks fail,
//     then the slot works again (default: every chunk fails).
//   LADDER_TEST_FAIL_LOG    a file that each mid-chunk failure appends one
//                           line to: "<slot> <first frame> sent <K> received <M>"
//
// Counts are per process: an encoder process serves one slot and outlives
// the errors it reports, and with --isolation none every slot's thread is in
// ladder's process.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace {

struct Fault {
    std::string mode;
    int skip = 0;        // chunks that succeed before the failures start
    int remaining = -1;  // -1: every chunk
};

// A chunk chosen to fail in the middle, by its codec context.
struct MidChunk {
    std::string slot;
    int half = 1;  // frames it takes before it fails
    int sent = 0;
    int received = 0;
    long long first_frame = -1;
};

std::map<std::string, Fault> parse(const char* spec) {
    std::map<std::string, Fault> out;
    if (!spec) return out;
    std::stringstream ss(spec);
    std::string entry;
    while (std::getline(ss, entry, ';')) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos) continue;
        Fault f;
        std::string mode = entry.substr(eq + 1);
        if (const auto star = mode.find('*'); star != std::string::npos) {
            f.remaining = std::atoi(mode.c_str() + star + 1);
            mode.resize(star);
        }
        if (const auto at = mode.find('@'); at != std::string::npos) {
            f.skip = std::atoi(mode.c_str() + at + 1);
            mode.resize(at);
        }
        f.mode = mode;
        out[entry.substr(0, std::min<std::size_t>(eq, 15))] = f;
    }
    return out;
}

struct State {
    std::mutex mu;
    // By slot label, cut to the 15 bytes a thread name keeps.
    std::map<std::string, Fault> faults = parse(std::getenv("LADDER_TEST_FAIL_SLOTS"));
    std::map<const AVCodecContext*, MidChunk> mid;
};

State& state() {
    static State s;
    return s;
}

std::string thread_name() {
    char name[16] = {};
    ::prctl(PR_GET_NAME, name, 0, 0, 0);
    return name;
}

// The fault this chunk on the calling thread's slot meets ("" for none).
std::string take_fault(State& s, const std::string& slot) {
    const auto it = s.faults.find(slot);
    if (it == s.faults.end() || it->second.remaining == 0) return "";
    if (it->second.skip > 0) {
        --it->second.skip;
        return "";
    }
    if (it->second.remaining > 0) --it->second.remaining;
    return it->second.mode;
}

void log_mid_failure(const MidChunk& c) {
    const char* path = std::getenv("LADDER_TEST_FAIL_LOG");
    if (!path || !*path) return;
    char line[160];
    const int n = std::snprintf(line, sizeof line, "%s %lld sent %d received %d\n", c.slot.c_str(), c.first_frame,
                                c.sent, c.received);
    if (n <= 0) return;
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    // One write with O_APPEND: lines from several processes never interleave.
    [[maybe_unused]] const ssize_t written =
        ::write(fd, line, std::min(static_cast<std::size_t>(n), sizeof line - 1));
    ::close(fd);
}

template <typename Fn>
Fn real(const char* name) {
    return reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" int avcodec_open2(AVCodecContext* ctx, const AVCodec* codec, AVDictionary** options) {
    using Open = int (*)(AVCodecContext*, const AVCodec*, AVDictionary**);
    static const auto real_open = real<Open>("avcodec_open2");
    State& s = state();
    std::string fault;
    {
        std::lock_guard lock(s.mu);
        s.mid.erase(ctx);  // a context freed since may come back at the same address
        const AVCodec* c = codec ? codec : ctx ? ctx->codec : nullptr;
        if (c && av_codec_is_encoder(c)) fault = take_fault(s, thread_name());
    }
    if (fault == "open") return AVERROR_EXTERNAL;
    const int ret = real_open(ctx, codec, options);
    if (ret == 0 && fault == "mid") {
        std::lock_guard lock(s.mu);
        MidChunk& c = s.mid[ctx];
        c.slot = thread_name();
        // ladder opens an encoder per chunk with the chunk as its GOP.
        c.half = std::max(1, ctx->gop_size / 2);
    }
    return ret;
}

extern "C" int avcodec_send_frame(AVCodecContext* ctx, const AVFrame* frame) {
    using SendFrame = int (*)(AVCodecContext*, const AVFrame*);
    static const auto real_send = real<SendFrame>("avcodec_send_frame");
    State& s = state();
    {
        std::lock_guard lock(s.mu);
        const auto it = s.mid.find(ctx);
        if (it != s.mid.end()) {
            MidChunk& c = it->second;
            if (frame && c.first_frame < 0) c.first_frame = frame->pts;
            // Half the chunk in, and only while the encoder holds frames:
            // the failure this library exists for.
            if (c.sent >= c.half && c.sent > c.received) {
                log_mid_failure(c);
                s.mid.erase(it);
                return AVERROR_EXTERNAL;
            }
            if (frame) ++c.sent;
        }
    }
    return real_send(ctx, frame);
}

extern "C" int avcodec_receive_packet(AVCodecContext* ctx, AVPacket* pkt) {
    using ReceivePacket = int (*)(AVCodecContext*, AVPacket*);
    static const auto real_receive = real<ReceivePacket>("avcodec_receive_packet");
    const int ret = real_receive(ctx, pkt);
    if (ret == 0) {
        State& s = state();
        std::lock_guard lock(s.mu);
        if (const auto it = s.mid.find(ctx); it != s.mid.end()) ++it->second.received;
    }
    return ret;
}
