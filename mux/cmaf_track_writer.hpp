#pragma once
// One CMAF track (a video rung or an audio rendition) as HLS wants it: an
// init segment (ftyp with the cmfc brand + moov with av1C/colr or esds) and
// one moof+mdat media segment per call to close_segment(), produced by
// libavformat's mp4 muxer into memory and written to files atomically.
// Packets carry presentation times: a track may start before 0 with
// samples that are decoded but not presented (an AAC encoder's priming),
// which init.mp4's edit list hides.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "av/hdr_metadata.hpp"
#include "av/compat.hpp"
#include "av/handles.hpp"
#include "mux/output_folder.hpp"

namespace ladder::mux {

// A segment's times are what it presents: a first segment that starts with
// samples before 0 (the priming) starts at 0.
struct CmafSegment {
    std::string uri;             // file name within the track's folder
    std::int64_t first_pts = 0;  // in the packets' time base
    std::int64_t duration_pts = 0;  // the same, in the packets' time base
    double duration = 0;         // seconds, from the samples' timestamps and durations
    std::uint64_t bytes = 0;     // the whole file
    std::uint64_t iframe_bytes = 0;  // from the start through the first sample (moof included)
    std::uint32_t samples = 0;
};

class CmafTrackWriter {
public:
    // Writes init.mp4 into folder. Packets are in time_base.
    // hdr: put on the track (the muxer writes mdcv and clli boxes into init.mp4).
    // language: the track's ISO 639-2/T code, for its mdhd box.
    // priming: how long (time_base) the track runs before 0, unpresented:
    // its first packet's pts is -priming. init.mp4 then has an edit list
    // (elst media_time = priming) and the samples' decode times start at 0.
    CmafTrackWriter(OutputFolder folder, const AVCodecParameters* par, AVRational time_base,
                    const av::HdrMetadata& hdr = {}, const std::string& language = "und", std::int64_t priming = 0);
    ~CmafTrackWriter();
    CmafTrackWriter(const CmafTrackWriter&) = delete;
    CmafTrackWriter& operator=(const CmafTrackWriter&) = delete;

    void write(AVPacket* pkt);
    // Cuts the fragment written since the last cut into dir/seg_NNNNN.m4s
    // (numbered from 1).
    CmafSegment close_segment();
    // Ends the track; removes seg files numbered past the last one written
    // (left over from an earlier, longer run in the same folder).
    void finish();

    const std::filesystem::path& dir() const { return folder_.path(); }
    const OutputFolder& folder() const { return folder_; }
    static constexpr const char* init_name = "init.mp4";

private:
    static int on_write(void* opaque, av::AvioWriteBuffer buf, int size);
    std::vector<std::uint8_t> take_bytes();

    OutputFolder folder_;
    AVRational time_base_;
    std::int64_t priming_;
    // Order matters: members are destroyed in reverse, so the muxer (ctx_,
    // which points at io_ through pb with AVFMT_FLAG_CUSTOM_IO and leaves it
    // alone) goes before the custom AVIOContext it writes into, and io_ is
    // freed once, by its own deleter (avio_context_free + its buffer).
    av::AvioContextPtr io_;
    av::OutputFormatPtr ctx_;
    std::vector<std::uint8_t> pending_;
    int next_segment_ = 1;
    std::int64_t seg_first_pts_ = 0;
    std::int64_t seg_end_pts_ = 0;
    std::uint32_t seg_samples_ = 0;
    bool finished_ = false;
};

}  // namespace ladder::mux
