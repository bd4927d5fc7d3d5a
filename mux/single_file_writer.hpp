#pragma once
// One MP4 file (video + optional audio) written under a temporary name and
// renamed into place by finish(); destroyed unfinished, it removes the
// temporary file, so no partial file ever looks complete.
#include <filesystem>

#include "av/hdr_metadata.hpp"
#include "av/handles.hpp"

namespace ladder::mux {

class SingleFileWriter {
public:
    // video/audio: stream parameters (audio may be null). Packets passed to
    // write_* are in video_time_base / audio_time_base.
    // hdr: put on the video stream (the muxer writes mdcv and clli boxes).
    SingleFileWriter(std::filesystem::path final_path, const AVCodecParameters* video, AVRational video_time_base,
                     const AVCodecParameters* audio, AVRational audio_time_base, const av::HdrMetadata& hdr = {});
    ~SingleFileWriter();
    SingleFileWriter(const SingleFileWriter&) = delete;
    SingleFileWriter& operator=(const SingleFileWriter&) = delete;

    void write_video(AVPacket* pkt);
    void write_audio(AVPacket* pkt);
    // Writes the trailer (moov moved to the front: faststart) and renames.
    void finish();

    const std::filesystem::path& final_path() const { return final_path_; }

private:
    void write(AVPacket* pkt, int stream, AVRational from);

    std::filesystem::path final_path_;
    std::filesystem::path temp_path_;
    av::OutputFormatPtr ctx_;
    AVRational video_tb_;
    AVRational audio_tb_;
    int audio_stream_ = -1;
    bool finished_ = false;
};

// "<dir>/.<name>.part": hidden and clearly unfinished.
std::filesystem::path temporary_path_for(const std::filesystem::path& final_path);

}  // namespace ladder::mux
