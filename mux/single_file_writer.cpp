#include "mux/single_file_writer.hpp"

#include <fmt/format.h>


#include "av/av_error.hpp"

namespace ladder::mux {

SingleFileWriter::SingleFileWriter(const OutputFolder& folder, std::string name, const AVCodecParameters* video,
                                   AVRational video_time_base, const std::vector<Mp4AudioTrack>& audio,
                                   const av::HdrMetadata& hdr, const std::vector<Mp4SubtitleTrack>& subtitles)
    : folder_(folder),
      name_(std::move(name)),
      temp_name_(temporary_name(name_)),
      final_path_(folder_.path() / name_),
      video_tb_(video_time_base) {
    out_ = std::make_unique<av::FdOutput>(folder_.create_file(temp_name_), (folder_.path() / temp_name_).string());
    AVFormatContext* raw = nullptr;
    // The url is only the name faststart asks FdOutput to reopen.
    av::check(avformat_alloc_output_context2(&raw, nullptr, "mp4", temp_name_.c_str()),
              fmt::format("creating MP4 muxer for {}", final_path_.string()));
    ctx_.reset(raw);

    AVStream* vs = avformat_new_stream(ctx_.get(), nullptr);
    if (!vs) throw std::bad_alloc();
    av::check(avcodec_parameters_copy(vs->codecpar, video), "copying video parameters");
    vs->codecpar->codec_tag = 0;
    vs->time_base = video_tb_;
    av::add_hdr_side_data(vs, hdr);
    for (const auto& track : audio) {
        AVStream* as = avformat_new_stream(ctx_.get(), nullptr);
        if (!as) throw std::bad_alloc();
        av::check(avcodec_parameters_copy(as->codecpar, track.codecpar), "copying audio parameters");
        as->codecpar->codec_tag = 0;
        as->time_base = track.time_base;
        // The mp4 muxer puts the tracks of one kind in one alternate group
        // and enables only the default one (tkhd), so players play one.
        as->disposition = track.is_default ? AV_DISPOSITION_DEFAULT : 0;
        av_dict_set(&as->metadata, "language", track.language.c_str(), 0);
        if (!track.title.empty()) av_dict_set(&as->metadata, "title", track.title.c_str(), 0);
        audio_tb_.push_back(track.time_base);
    }
    first_subtitle_stream_ = static_cast<int>(ctx_->nb_streams);
    for (const auto& track : subtitles) {
        AVStream* ss = avformat_new_stream(ctx_.get(), nullptr);
        if (!ss) throw std::bad_alloc();
        av::check(avcodec_parameters_copy(ss->codecpar, track.codecpar), "copying subtitle parameters");
        ss->codecpar->codec_tag = 0;
        ss->time_base = AVRational{1, 1000};
        ss->disposition = (track.is_default ? AV_DISPOSITION_DEFAULT : 0) | (track.is_forced ? AV_DISPOSITION_FORCED : 0);
        av_dict_set(&ss->metadata, "language", track.language.c_str(), 0);
        if (!track.title.empty()) av_dict_set(&ss->metadata, "title", track.title.c_str(), 0);
    }

    out_->attach(ctx_.get());
    AVDictionary* opts = nullptr;
    av_dict_set(&opts, "movflags", "+faststart", 0);
    int ret = avformat_write_header(ctx_.get(), &opts);
    av_dict_free(&opts);
    av::check(ret, fmt::format("writing MP4 header of {}", final_path_.string()));
}

SingleFileWriter::~SingleFileWriter() {
    if (finished_) return;
    ctx_.reset();
    try {
        folder_.remove(temp_name_);
    } catch (const std::exception&) {
        // best effort: the run's own error is the one to report
    }
}

void SingleFileWriter::write(AVPacket* pkt, int stream, AVRational from) {
    pkt->stream_index = stream;
    av_packet_rescale_ts(pkt, from, ctx_->streams[stream]->time_base);
    av::check(av_interleaved_write_frame(ctx_.get(), pkt), fmt::format("writing {}", final_path_.string()));
}

void SingleFileWriter::write_video(AVPacket* pkt) { write(pkt, 0, video_tb_); }

void SingleFileWriter::write_audio(std::size_t track, AVPacket* pkt) {
    write(pkt, static_cast<int>(track) + 1, audio_tb_.at(track));
}

void SingleFileWriter::write_subtitle(std::size_t track, AVPacket* pkt) {
    write(pkt, first_subtitle_stream_ + static_cast<int>(track), AVRational{1, 1000});
}

void SingleFileWriter::finish() {
    av::check(av_write_trailer(ctx_.get()), fmt::format("finishing {}", final_path_.string()));
    out_->flush();
    ctx_.reset();
    out_.reset();
    folder_.rename(temp_name_, name_);
    finished_ = true;
}

}  // namespace ladder::mux
