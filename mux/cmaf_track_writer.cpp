#include "mux/cmaf_track_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "av/av_error.hpp"
#include "mux/bmff_boxes.hpp"

namespace ladder::mux {

namespace {

std::string segment_name(int n) { return fmt::format("seg_{:05d}.m4s", n); }

}  // namespace

int CmafTrackWriter::on_write(void* opaque, av::AvioWriteBuffer buf, int size) {
    auto* self = static_cast<CmafTrackWriter*>(opaque);
    self->pending_.insert(self->pending_.end(), buf, buf + size);
    return size;
}

std::vector<std::uint8_t> CmafTrackWriter::take_bytes() {
    avio_flush(ctx_->pb);
    std::vector<std::uint8_t> out;
    out.swap(pending_);
    return out;
}

CmafTrackWriter::CmafTrackWriter(OutputFolder folder, const AVCodecParameters* par, AVRational time_base,
                                 const av::HdrMetadata& hdr, const std::string& language, std::int64_t priming)
    : folder_(std::move(folder)), time_base_(time_base), priming_(priming) {
    AVFormatContext* raw = nullptr;
    av::check(avformat_alloc_output_context2(&raw, nullptr, "mp4", nullptr), "creating the CMAF muxer");
    ctx_.reset(raw);

    constexpr int io_buffer_size = 64 * 1024;
    auto* buffer = static_cast<unsigned char*>(av_malloc(io_buffer_size));
    if (!buffer) throw std::bad_alloc();
    io_.reset(avio_alloc_context(buffer, io_buffer_size, 1, this, nullptr, &CmafTrackWriter::on_write, nullptr));
    if (!io_) {
        av_free(buffer);
        throw std::bad_alloc();
    }
    // The flag first: from here on, any throw destroys ctx_ with pb set, and
    // the flag tells OutputFormatDeleter (and libavformat) that pb is ours
    // to free (io_), not a file to close.
    ctx_->flags |= AVFMT_FLAG_CUSTOM_IO;
    ctx_->pb = io_.get();

    AVStream* st = avformat_new_stream(ctx_.get(), nullptr);
    if (!st) throw std::bad_alloc();
    av::check(avcodec_parameters_copy(st->codecpar, par), "copying stream parameters");
    st->codecpar->codec_tag = 0;
    st->time_base = time_base_;
    av::add_hdr_side_data(st, hdr);
    av::check(av_dict_set(&st->metadata, "language", language.c_str(), 0), "setting the track's language");

    AVDictionary* opts = nullptr;
    // cmaf: iso6/cmfc brands; frag_custom: a fragment exactly where ladder
    // cuts a segment; empty_moov: the init segment holds no samples;
    // default_base_moof: offsets relative to each moof, so every segment file
    // stands alone; write_colr: colr (nclx) even for unspecified colour.
    av_dict_set(&opts, "movflags", "+cmaf+frag_custom+empty_moov+default_base_moof+write_colr+skip_trailer", 0);
    // The edit list is ladder's (below): the muxer writes none that means
    // anything into a moov written before the first sample (5.1 and 7.1).
    av_dict_set(&opts, "use_editlist", "0", 0);
    int ret = avformat_write_header(ctx_.get(), &opts);
    av_dict_free(&opts);
    av::check(ret, fmt::format("writing the CMAF header for {}", dir().string()));
    std::vector<std::uint8_t> init = take_bytes();
    // Players start the track where the edit says: the priming is decoded
    // (the next frame needs it) but never heard, and the audio starts with
    // the video's first frame.
    if (priming_ > 0) init = with_edit_list(init, av_rescale_q(priming_, time_base_, st->time_base));
    folder_.write_atomically(init_name, init);
}

// ctx_ is freed first (declared after io_) without touching pb
// (AVFMT_FLAG_CUSTOM_IO), then io_ frees the AVIOContext and its buffer.
// The same holds when the constructor throws.
CmafTrackWriter::~CmafTrackWriter() = default;

void CmafTrackWriter::write(AVPacket* pkt) {
    if (seg_samples_ == 0) {
        // What plays of the segment starts at 0 at the earliest.
        seg_first_pts_ = std::max<std::int64_t>(pkt->pts, 0);
        seg_end_pts_ = seg_first_pts_;
    }
    seg_end_pts_ = std::max(seg_end_pts_, pkt->pts + std::max<std::int64_t>(pkt->duration, 0));
    ++seg_samples_;
    pkt->stream_index = 0;
    // Media time (tfdt) = presentation time + priming: the first sample
    // decodes at 0, so the muxer shifts nothing on its own.
    pkt->pts += priming_;
    if (pkt->dts != AV_NOPTS_VALUE) pkt->dts += priming_;
    av_packet_rescale_ts(pkt, time_base_, ctx_->streams[0]->time_base);
    av::check(av_write_frame(ctx_.get(), pkt), fmt::format("writing a sample into {}", dir().string()));
}

CmafSegment CmafTrackWriter::close_segment() {
    if (seg_samples_ == 0) throw std::logic_error("close_segment() with no sample written");
    av::check(av_write_frame(ctx_.get(), nullptr), fmt::format("cutting a fragment in {}", dir().string()));
    std::vector<std::uint8_t> bytes = take_bytes();
    CmafSegment seg;
    seg.uri = segment_name(next_segment_++);
    seg.first_pts = seg_first_pts_;
    seg.duration_pts = seg_end_pts_ - seg_first_pts_;
    seg.duration = static_cast<double>(seg_end_pts_ - seg_first_pts_) * av_q2d(time_base_);
    seg.bytes = bytes.size();
    seg.samples = seg_samples_;
    const auto layout = read_fragment_layout(bytes);
    if (!layout || layout->sample_count != seg_samples_)
        throw std::runtime_error(fmt::format("{}: the muxer wrote an unexpected fragment for {}", dir().string(), seg.uri));
    seg.iframe_bytes = layout->first_sample_offset + layout->first_sample_size;
    folder_.write_atomically(seg.uri, bytes);
    seg_samples_ = 0;
    return seg;
}

void CmafTrackWriter::finish() {
    if (finished_) return;
    av::check(av_write_trailer(ctx_.get()), fmt::format("ending the CMAF track in {}", dir().string()));
    take_bytes();  // nothing of use after the last fragment (skip_trailer)
    finished_ = true;
    for (int n = next_segment_;; ++n)
        if (!folder_.remove(segment_name(n))) break;
}

}  // namespace ladder::mux
