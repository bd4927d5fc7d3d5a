#include "av/input_file.hpp"

#include <fmt/format.h>

#include <exception>
#include <string_view>
#include <system_error>

#include "av/av_error.hpp"
#include "av/logging.hpp"
#include "av/regular_file.hpp"

extern "C" {
#include <libavutil/avstring.h>
}

namespace ladder::av {

struct InputFile::OpenGuard {
    std::stop_token stop;
    decltype(AVFormatContext::io_open) open_default = nullptr;
    std::exception_ptr refused;  // the NotARegularFile an open met
};

namespace {

// libavformat asks between reads (and while probing) whether to give up.
int stop_requested(void* stop) { return static_cast<const std::stop_token*>(stop)->stop_requested() ? 1 : 0; }

// A local file, read through the file protocol (the other protocols go their
// own way: a playlist's data: URIs, or what the protocol whitelist refuses).
bool is_local_file_read(const AVFormatContext* s, const char* url, int flags) {
    const char* protocol = avio_find_protocol_name(url);
    return protocol && std::string_view(protocol) == "file" && !(flags & AVIO_FLAG_WRITE) &&
           (!s->protocol_whitelist || av_match_list("file", s->protocol_whitelist, ',') > 0);
}

}  // namespace

// libavformat's io_open for every file of this input. It is called from C:
// nothing may be thrown through it.
int InputFile::open_regular_only(AVFormatContext* s, AVIOContext** pb, const char* url, int flags,
                                 AVDictionary** options) {
    auto* guard = static_cast<OpenGuard*>(s->opaque);
    if (!is_local_file_read(s, url, flags)) return guard->open_default(s, pb, url, flags, options);
    const char* path = url;
    av_strstart(url, "file:", &path);
    try {
        const RegularFile file(path, "input");
        // The file just checked, not the path again: a FIFO swapped in since
        // is never reached. libavformat opens and closes its own descriptor.
        const std::string same_file = fmt::format("/proc/self/fd/{}", file.fd());
        const int opened = avio_open2(pb, same_file.c_str(), flags, &s->interrupt_callback, options);
        if (opened >= 0 || opened == AVERROR_EXIT) return opened;
        // No /proc (a chroot without it): the path, checked a moment ago.
        return avio_open2(pb, url, flags, &s->interrupt_callback, options);
    } catch (const NotARegularFile&) {
        guard->refused = std::current_exception();
        return AVERROR(EINVAL);
    } catch (const std::system_error& e) {
        return AVERROR(e.code().value());
    } catch (...) {
        return AVERROR(ENOMEM);
    }
}

void InputFile::rethrow_refusal() const {
    if (guard_->refused) std::rethrow_exception(guard_->refused);
}

InputFile::InputFile(InputSpec spec) : spec_(std::move(spec)), guard_(std::make_unique<OpenGuard>()) {
    const std::string& path = spec_.path;
    // What the demuxer says about a file it cannot open ("moov atom not
    // found") goes into the error instead of onto stderr on its own.
    LibraryLogCapture log;
    auto fail = [&](int ret, const char* what) {
        rethrow_refusal();
        // Reads the stop cut short look like a damaged file to a demuxer
        // ("moov atom not found"): it is the stop.
        if (guard_->stop.stop_requested()) ret = AVERROR_EXIT;
        throw AvError(ret, fmt::format("{} {}: {}{}{}", what, path, error_string(ret), log.text().empty() ? "" : ": ",
                                       log.text()),
                      log.text());
    };
    const AVInputFormat* format = nullptr;
    if (!spec_.format.empty() && !(format = av_find_input_format(spec_.format.c_str())))
        throw AvError(AVERROR_DEMUXER_NOT_FOUND,
                      fmt::format("opening {}: this FFmpeg build has no {} demuxer", path, spec_.format));
    AVDictionary* options = nullptr;
    for (const auto& [key, value] : spec_.options) av_dict_set(&options, key.c_str(), value.c_str(), 0);
    AVFormatContext* raw = avformat_alloc_context();
    if (!raw) throw AvError(AVERROR(ENOMEM), fmt::format("opening {}: out of memory", path));
    guard_->stop = spec_.stop;
    guard_->open_default = raw->io_open;
    raw->opaque = guard_.get();
    raw->io_open = &InputFile::open_regular_only;
    raw->interrupt_callback = AVIOInterruptCB{&stop_requested, &guard_->stop};
    // On failure avformat_open_input frees the context itself.
    const int opened = avformat_open_input(&raw, path.c_str(), format, &options);
    const DictionaryPtr not_taken(options);
    if (opened < 0) fail(opened, "opening");
    ctx_.reset(raw);
    const int probed = avformat_find_stream_info(ctx_.get(), nullptr);
    // Probing ends without an error at a file it may not open (an image
    // sequence's frame), and when the stop cuts it short: with what it has.
    if (probed < 0 || guard_->refused || guard_->stop.stop_requested())
        fail(probed < 0 ? probed : AVERROR_EXIT, "reading stream info of");
    log.replay();
}

InputFile::~InputFile() = default;

int InputFile::best_stream(AVMediaType type) const {
    int idx = av_find_best_stream(ctx_.get(), type, -1, -1, nullptr, 0);
    return idx < 0 ? -1 : idx;
}

bool InputFile::read(AVPacket* pkt) {
    int ret = av_read_frame(ctx_.get(), pkt);
    if (ret < 0) rethrow_refusal();
    // A demuxer may take reads the stop cut short for the end of the file.
    if (ret < 0 && guard_->stop.stop_requested()) ret = AVERROR_EXIT;
    if (ret == AVERROR_EOF) return false;
    check(ret, fmt::format("reading {}", spec_.path));
    if (spec_.timeline) spec_.timeline->apply(pkt, positions_.of(pkt));
    return true;
}

CodecContextPtr open_decoder(const AVStream* stream, int threads) {
    const AVCodec* codec = avcodec_find_decoder(stream->codecpar->codec_id);
    if (!codec)
        throw AvError(AVERROR_DECODER_NOT_FOUND,
                      fmt::format("no decoder for codec '{}'", avcodec_get_name(stream->codecpar->codec_id)));
    CodecContextPtr ctx = make_codec_context(codec);
    check(avcodec_parameters_to_context(ctx.get(), stream->codecpar), "copying stream parameters");
    ctx->pkt_timebase = stream->time_base;
    ctx->thread_count = threads;
    check(avcodec_open2(ctx.get(), codec, nullptr), fmt::format("opening decoder {}", codec->name));
    return ctx;
}

}  // namespace ladder::av
