#include "engine/source/source_info.hpp"

#include "engine/base/even_size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <system_error>

#include "av/av_error.hpp"
#include "av/compat.hpp"
#include "av/regular_file.hpp"
#include "engine/base/errors.hpp"
#include "engine/source/image_sequence.hpp"

extern "C" {
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

namespace {

// libavformat gave up because the run was stopped: not the input's fault.
void throw_if_stopped(const av::AvError& e) {
    if (e.code() == AVERROR_EXIT) throw Cancelled();
}

std::unique_ptr<av::InputFile> open_image_sequence(const std::filesystem::path& pattern,
                                                   std::optional<AVRational> frame_rate, std::stop_token stop) {
    const ImageSequence sequence = scan_image_sequence(pattern);
    if (!frame_rate)
        throw InputError(fmt::format("input {} is an image sequence: pass --frame-rate (for example --frame-rate 24)",
                                     pattern.string()));
    av::InputSpec spec = image_sequence_input(sequence, *frame_rate);
    spec.stop = std::move(stop);
    try {
        return std::make_unique<av::InputFile>(std::move(spec));
    } catch (const av::NotARegularFile& e) {
        throw InputError(e.what());  // a frame swapped for a FIFO after the scan
    } catch (const av::AvError& e) {
        throw_if_stopped(e);
        if (e.code() == AVERROR_DEMUXER_NOT_FOUND)
            throw InputError(fmt::format("input {}: this FFmpeg build cannot read image sequences (no image2 "
                                         "demuxer): make a video of the frames, or use an FFmpeg with it",
                                         pattern.string()));
        throw InputError(fmt::format("input {}: its frames are not images ladder can read ({}): pass PNG, JPEG, TIFF, "
                                     "DPX or EXR frames",
                                     pattern.string(), av::error_string(e.code())));
    }
}

}  // namespace

std::unique_ptr<av::InputFile> open_source(const std::filesystem::path& path, std::optional<AVRational> frame_rate,
                                           std::stop_token stop) {
    if (is_image_sequence(path)) return open_image_sequence(path, frame_rate, std::move(stop));
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw InputError(fmt::format("input {} does not exist: check the path", path.string()));
    if (std::filesystem::is_directory(path, ec))
        throw InputError(fmt::format("input {} is a directory: pass a video file", path.string()));
    try {
        av::require_regular_file(path.string(), "input");
    } catch (const av::NotARegularFile& e) {
        throw InputError(e.what());
    }
    if (std::filesystem::file_size(path, ec) == 0 && !ec)
        throw InputError(fmt::format("input {} is empty (0 bytes): pass a video file", path.string()));
    if (frame_rate)
        throw InputError(fmt::format("input {} is a video file: --frame-rate is for image sequences only (a video's "
                                     "own rate is kept): leave it out",
                                     path.string()));
    av::InputSpec spec(path.string());
    spec.stop = std::move(stop);
    try {
        return std::make_unique<av::InputFile>(std::move(spec));
    } catch (const av::NotARegularFile& e) {
        throw InputError(e.what());  // swapped for a FIFO after the check above
    } catch (const av::AvError& e) {
        throw_if_stopped(e);
        const std::string why = av::error_string(e.code()) + (e.detail().empty() ? "" : ": " + e.detail());
        throw InputError(
            fmt::format("input {} is not a media file ladder can read ({}): pass a video file", path.string(), why));
    }
}

bool read_or_cancel(av::InputFile& input, AVPacket* pkt) {
    try {
        return input.read(pkt);
    } catch (const av::AvError& e) {
        throw_if_stopped(e);
        throw;
    }
}

namespace {

AVRational pick_frame_rate(AVFormatContext* fmt, AVStream* st) {
    AVRational r = av_guess_frame_rate(fmt, st, nullptr);
    if (r.num <= 0 || r.den <= 0 || av_q2d(r) > 240.0) r = st->avg_frame_rate;
    if (r.num <= 0 || r.den <= 0 || av_q2d(r) > 240.0) r = AVRational{25, 1};
    return av_make_q(r.num, r.den);
}

// Clockwise degrees to turn the decoded picture by, from the display
// matrix, the way ffmpeg's own autorotation reads it; other angles are
// ignored (0).
int rotation_of(const AVStream* st) {
    const std::int32_t* matrix = av::stream_display_matrix(st);
    if (!matrix) return 0;
    double theta = -av_display_rotation_get(matrix);
    if (std::isnan(theta)) return 0;
    theta -= 360 * std::floor(theta / 360 + 0.9 / 360);
    const int snapped = static_cast<int>(std::lround(theta / 90.0)) * 90 % 360;
    return std::fabs(theta - snapped) < 1.0 || std::fabs(theta - 360 - snapped) < 1.0 ? snapped : 0;
}

// Full-range YUV: tagged so, or a yuvj format (the H.264, HEVC and MJPEG
// decoders' way of saying it at 8 bits, whatever the tag).
bool is_full_range(AVPixelFormat format, AVColorRange range) {
    switch (format) {
        case AV_PIX_FMT_YUVJ420P:
        case AV_PIX_FMT_YUVJ422P:
        case AV_PIX_FMT_YUVJ444P:
        case AV_PIX_FMT_YUVJ440P:
        case AV_PIX_FMT_YUVJ411P: return true;
        default: return range == AVCOL_RANGE_JPEG;
    }
}

// Untagged sources get what players assume for them anyway (BT.709 from 720
// lines up, SMPTE 170M below; limited range), written down explicitly so
// every rung's sequence header, colr box and CODECS say the same thing.
void fill_missing_color(SourceInfo& s) {
    const bool hd = s.height >= 720;
    if (s.color_primaries == AVCOL_PRI_UNSPECIFIED || s.color_primaries == AVCOL_PRI_RESERVED ||
        s.color_primaries == AVCOL_PRI_RESERVED0)
        s.color_primaries = hd ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M;
    if (s.color_trc == AVCOL_TRC_UNSPECIFIED || s.color_trc == AVCOL_TRC_RESERVED || s.color_trc == AVCOL_TRC_RESERVED0)
        s.color_trc = hd ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M;
    if (s.colorspace == AVCOL_SPC_UNSPECIFIED || s.colorspace == AVCOL_SPC_RESERVED)
        s.colorspace = hd ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M;
    if (s.color_range == AVCOL_RANGE_UNSPECIFIED) s.color_range = AVCOL_RANGE_MPEG;
}

}  // namespace

void repair_timeline(std::unique_ptr<av::InputFile>& input, SourceInfo& src) {
    const AVFormatContext* ctx = input->get();
    if (!(ctx->iformat->flags & AVFMT_TS_DISCONT)) return;
    std::vector<int> audio;
    for (unsigned i = 0; i < ctx->nb_streams; ++i)
        if (ctx->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) audio.push_back(static_cast<int>(i));
    av::TimelineRepair repair = av::find_timestamp_jumps(input->spec(), src.video_stream, audio, src.frame_rate);
    if (repair.empty()) return;
    av::InputSpec spec = input->spec();
    src.timestamp_jumps = repair.jumps;
    if (repair.video_seconds > 0) {
        src.duration_seconds = repair.video_seconds;
        src.estimated_frames = std::llround(repair.video_seconds * av_q2d(src.frame_rate));
    }
    spec.timeline = std::make_shared<const av::TimelineRepair>(std::move(repair));
    input = std::make_unique<av::InputFile>(spec);
    src.opened_as = spec;
}

SourceInfo describe_source(const av::InputFile& input) {
    SourceInfo s;
    s.path = input.path();
    s.opened_as = input.spec();
    AVFormatContext* fmt_ctx = input.get();
    s.video_stream = input.best_stream(AVMEDIA_TYPE_VIDEO);
    // Cover art is a one-picture "video" stream: it does not make a video.
    if (s.video_stream >= 0 && (fmt_ctx->streams[s.video_stream]->disposition & AV_DISPOSITION_ATTACHED_PIC))
        s.video_stream = -1;
    if (s.video_stream < 0)
        throw InputError(fmt::format("input {} has no video stream: ladder needs a video to encode", s.path));
    AVStream* vs = fmt_ctx->streams[s.video_stream];
    const AVCodecParameters* par = vs->codecpar;
    if (par->width <= 0 || par->height <= 0 || par->format < 0)
        throw InputError(fmt::format("input {}: the video stream ({}) has no usable size or pixel format: the file may "
                                     "be damaged",
                                     s.path, avcodec_get_name(par->codec_id)));
    if (!avcodec_find_decoder(par->codec_id))
        throw InputError(fmt::format("input {}: no decoder for video codec '{}' in this FFmpeg build", s.path,
                                     avcodec_get_name(par->codec_id)));
    s.codec_name = avcodec_get_name(par->codec_id);
    s.width = par->width;
    s.height = par->height;
    AVRational sar = av_guess_sample_aspect_ratio(fmt_ctx, vs, nullptr);
    s.sample_aspect = (sar.num > 0 && sar.den > 0) ? sar : AVRational{1, 1};
    // Even display size with the source's display aspect ratio: 321x241
    // gives 320x240, 320x240 with 4:3 pixels 426x240.
    s.display_height = std::max(2, s.height & ~1);
    s.display_width = even_round(s.display_height * (s.width * av_q2d(s.sample_aspect)) / s.height);
    s.rotation = rotation_of(vs);
    if (s.rotation == 90 || s.rotation == 270) std::swap(s.display_width, s.display_height);
    s.interlaced = par->field_order == AV_FIELD_TT || par->field_order == AV_FIELD_BB ||
                   par->field_order == AV_FIELD_TB || par->field_order == AV_FIELD_BT;
    s.frame_rate = pick_frame_rate(fmt_ctx, vs);
    s.source_pix_fmt = static_cast<AVPixelFormat>(par->format);
    const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(s.source_pix_fmt);
    s.bit_depth = desc ? desc->comp[0].depth : 8;
    s.pix_fmt = s.bit_depth > 8 ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
    s.color_primaries = par->color_primaries;
    s.color_trc = par->color_trc;
    s.colorspace = par->color_space;
    s.color_range = par->color_range;
    s.rgb_picture = desc && ((desc->flags & AV_PIX_FMT_FLAG_RGB) || desc->nb_components <= 2);
    // Made YUV by ladder: the matrix is the one fill_missing_color picks for
    // the size, the range video's usual limited one.
    if (s.rgb_picture) s.colorspace = AVCOL_SPC_UNSPECIFIED;
    s.to_limited_range = s.rgb_picture || is_full_range(s.source_pix_fmt, s.color_range);
    if (s.to_limited_range) s.color_range = AVCOL_RANGE_MPEG;
    fill_missing_color(s);
    s.hdr = av::hdr_of_stream(vs);

    if (vs->duration > 0 && vs->duration != AV_NOPTS_VALUE)
        s.duration_seconds = vs->duration * av_q2d(vs->time_base);
    else if (fmt_ctx->duration > 0)
        s.duration_seconds = static_cast<double>(fmt_ctx->duration) / AV_TIME_BASE;
    s.estimated_frames = vs->nb_frames > 0 ? vs->nb_frames
                                            : static_cast<std::int64_t>(std::llround(s.duration_seconds * av_q2d(s.frame_rate)));

    for (unsigned i = 0; i < fmt_ctx->nb_streams; ++i) {
        const AVStream* ss = fmt_ctx->streams[i];
        if (ss->codecpar->codec_type != AVMEDIA_TYPE_SUBTITLE) continue;
        SourceSubtitleStream t;
        t.stream = static_cast<int>(i);
        t.ordinal = static_cast<int>(s.subtitle_tracks.size()) + 1;
        t.codec_name = avcodec_get_name(ss->codecpar->codec_id);
        const AVCodecDescriptor* desc = avcodec_descriptor_get(ss->codecpar->codec_id);
        t.text = desc && (desc->props & AV_CODEC_PROP_TEXT_SUB);
        t.decodable = avcodec_find_decoder(ss->codecpar->codec_id) != nullptr;
        t.is_default = (ss->disposition & AV_DISPOSITION_DEFAULT) != 0;
        t.is_forced = (ss->disposition & AV_DISPOSITION_FORCED) != 0;
        if (const AVDictionaryEntry* lang = av_dict_get(ss->metadata, "language", nullptr, 0); lang && *lang->value)
            t.language = lang->value;
        if (const AVDictionaryEntry* title = av_dict_get(ss->metadata, "title", nullptr, 0)) t.title = title->value;
        s.subtitle_tracks.push_back(std::move(t));
    }
    describe_audio(input, s);
    return s;
}

void describe_audio(const av::InputFile& input, SourceInfo& s) {
    AVFormatContext* fmt_ctx = input.get();
    s.audio_tracks.clear();
    for (unsigned i = 0; i < fmt_ctx->nb_streams; ++i) {
        const AVStream* as = fmt_ctx->streams[i];
        if (as->codecpar->codec_type != AVMEDIA_TYPE_AUDIO) continue;
        SourceAudioStream a;
        a.stream = static_cast<int>(i);
        a.ordinal = static_cast<int>(s.audio_tracks.size()) + 1;
        a.channels = as->codecpar->ch_layout.nb_channels;
        a.sample_rate = as->codecpar->sample_rate;
        a.codec_name = avcodec_get_name(as->codecpar->codec_id);
        a.is_default = (as->disposition & AV_DISPOSITION_DEFAULT) != 0;
        a.decodable = avcodec_find_decoder(as->codecpar->codec_id) && a.channels > 0 && as->codecpar->sample_rate > 0;
        if (const AVDictionaryEntry* lang = av_dict_get(as->metadata, "language", nullptr, 0); lang && *lang->value)
            a.language = lang->value;
        if (const AVDictionaryEntry* title = av_dict_get(as->metadata, "title", nullptr, 0)) a.title = title->value;
        s.audio_tracks.push_back(std::move(a));
    }
}

namespace {

void read_first_frame_hdr(SourceInfo& src) {
    const auto input = std::make_unique<av::InputFile>(src.opened_as);
    const AVStream* vs = input->get()->streams[src.video_stream];
    av::CodecContextPtr decoder = av::open_decoder(vs, 1);
    av::PacketPtr pkt = av::make_packet();
    av::FramePtr frame = av::make_frame();
    // The first frame that decodes carries it; 256 packets is far past any
    // key frame interval that matters here.
    for (int read = 0; read < 256 && av_read_frame(input->get(), pkt.get()) >= 0; av_packet_unref(pkt.get())) {
        if (pkt->stream_index != src.video_stream) continue;
        ++read;
        if (avcodec_send_packet(decoder.get(), pkt.get()) < 0) continue;
        if (avcodec_receive_frame(decoder.get(), frame.get()) == 0) {
            src.hdr = av::hdr_of_frame(frame.get());
            return;
        }
    }
}

}  // namespace

void read_source_hdr(SourceInfo& src) {
    if (!src.hdr.empty()) return;
    if (src.color_trc != AVCOL_TRC_SMPTE2084 && src.color_trc != AVCOL_TRC_ARIB_STD_B67) return;
    try {
        read_first_frame_hdr(src);
    } catch (const std::exception&) {
        // A source that does not decode here is reported by the run's own
        // decode, with what it could not read; the metadata stays unknown.
    }
}

}  // namespace ladder::engine
