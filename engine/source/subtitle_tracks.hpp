#pragma once
// The subtitle renditions of a run: each selected text subtitle stream
// decoded once into cues on the output's timeline (0 = the first video
// frame), as WebVTT cue text for the HLS and DASH renditions and as
// mov_text samples for the MP4 outputs. The source is read by a demuxer of
// its own (`read`, a stage of the run: subtitle packets are a few bytes,
// spread over the whole file); readers wait until it is done.
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "av/handles.hpp"
#include "av/input_file.hpp"
#include "engine/media/subtitle_selection.hpp"
#include "mux/webvtt_document.hpp"

namespace ladder::engine {

class SubtitleTracks {
public:
    // Opens the source (as it was opened before: SourceInfo::opened_as), a
    // decoder per stream and the WebVTT and mov_text encoders. video_start:
    // the first video timestamp (AV_TIME_BASE units). Throws av::AvError.
    SubtitleTracks(const av::InputSpec& source, std::vector<SubtitleRenditionSpec> renditions,
                   std::int64_t video_start);
    ~SubtitleTracks();
    SubtitleTracks(const SubtitleTracks&) = delete;
    SubtitleTracks& operator=(const SubtitleTracks&) = delete;

    std::size_t size() const { return specs_.size(); }
    const SubtitleRenditionSpec& spec(std::size_t i) const { return specs_.at(i); }
    // The mov_text track's parameters (known from construction); its
    // packets are in milliseconds.
    const AVCodecParameters* mov_text_codecpar(std::size_t i) const;

    // Reads every cue; a damaged subtitle packet is skipped.
    void read(std::stop_token stop);
    void abandon();  // wakes waiting readers after a failure

    // Block until read() is done; nullptr when it was stopped or abandoned.
    const std::vector<mux::WebVttCue>* cues(std::size_t i, std::stop_token stop) const;
    const std::vector<av::PacketPtr>* mov_text(std::size_t i, std::stop_token stop) const;

private:
    struct Track;
    void decode(Track& track, AVPacket* pkt);
    bool wait_done(std::stop_token stop) const;

    std::vector<SubtitleRenditionSpec> specs_;
    av::InputFile input_;
    std::int64_t video_start_ms_ = 0;
    std::vector<std::unique_ptr<Track>> tracks_;  // parallel to specs_

    mutable std::mutex mu_;  // the subtitle reader's own: guards what follows; a leaf
    mutable std::condition_variable_any cv_;
    bool done_ = false;
    bool complete_ = false;  // every packet was read
};

}  // namespace ladder::engine
