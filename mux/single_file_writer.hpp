#pragma once
// One MP4 file (video and any number of audio tracks) written under a temporary name and
// renamed into place by finish(); destroyed unfinished, it removes the
// temporary file, so no partial file ever looks complete. Both names are
// opened relative to the folder's descriptor, never through a link.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "av/fd_io.hpp"
#include "av/hdr_metadata.hpp"
#include "av/handles.hpp"
#include "mux/output_folder.hpp"

namespace ladder::mux {

struct Mp4AudioTrack {
    const AVCodecParameters* codecpar = nullptr;
    AVRational time_base{1, 1};  // of the packets given to write_audio
    std::string language;        // ISO 639-2, "und" when unknown
    std::string title;
    bool is_default = false;  // the track players pick; the others are alternates to it
};

// A mov_text track; its packets are in milliseconds.
struct Mp4SubtitleTrack {
    const AVCodecParameters* codecpar = nullptr;
    std::string language;
    std::string title;
    bool is_default = false;
    bool is_forced = false;
};

class SingleFileWriter {
public:
    // video: stream parameters; packets given to write_video are in
    // video_time_base. audio: one track each, in this order.
    // hdr: put on the video stream (the muxer writes mdcv and clli boxes).
    SingleFileWriter(const OutputFolder& folder, std::string name, const AVCodecParameters* video, AVRational video_time_base,
                     const std::vector<Mp4AudioTrack>& audio, const av::HdrMetadata& hdr = {},
                     const std::vector<Mp4SubtitleTrack>& subtitles = {});
    ~SingleFileWriter();
    SingleFileWriter(const SingleFileWriter&) = delete;
    SingleFileWriter& operator=(const SingleFileWriter&) = delete;

    void write_video(AVPacket* pkt);
    void write_audio(std::size_t track, AVPacket* pkt);
    void write_subtitle(std::size_t track, AVPacket* pkt);
    // Writes the trailer (moov moved to the front: faststart) and renames.
    void finish();

    const std::filesystem::path& final_path() const { return final_path_; }
    static std::string temporary_name(const std::string& name) { return "." + name + ".part"; }

private:
    void write(AVPacket* pkt, int stream, AVRational from);

    OutputFolder folder_;
    std::string name_;
    std::string temp_name_;
    std::filesystem::path final_path_;  // for messages
    // Declared before ctx_, so the muxer goes first: it writes into out_.
    std::unique_ptr<av::FdOutput> out_;
    av::OutputFormatPtr ctx_;
    AVRational video_tb_;
    std::vector<AVRational> audio_tb_;  // stream 1 + i is audio track i
    int first_subtitle_stream_ = 0;    // then the subtitle tracks
    bool finished_ = false;
};

}  // namespace ladder::mux
