#include "av/input_file.hpp"

#include <fmt/format.h>

#include "av/av_error.hpp"
#include "av/logging.hpp"

namespace ladder::av {

InputFile::InputFile(InputSpec spec) : spec_(std::move(spec)) {
    const std::string& path = spec_.path;
    // What the demuxer says about a file it cannot open ("moov atom not
    // found") goes into the error instead of onto stderr on its own.
    LibraryLogCapture log;
    auto fail = [&](int ret, const char* what) {
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
    AVFormatContext* raw = nullptr;
    const int opened = avformat_open_input(&raw, path.c_str(), format, &options);
    const DictionaryPtr not_taken(options);
    if (opened < 0) fail(opened, "opening");
    ctx_.reset(raw);
    if (int ret = avformat_find_stream_info(ctx_.get(), nullptr); ret < 0) fail(ret, "reading stream info of");
    log.replay();
}

int InputFile::best_stream(AVMediaType type) const {
    int idx = av_find_best_stream(ctx_.get(), type, -1, -1, nullptr, 0);
    return idx < 0 ? -1 : idx;
}

bool InputFile::read(AVPacket* pkt) {
    int ret = av_read_frame(ctx_.get(), pkt);
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
