#pragma once
// HDR10 static metadata: the mastering display's colour volume (SMPTE ST
// 2086) and the content light levels (MaxCLL, MaxFALL), as FFmpeg carries
// them: stream side data (a container's mdcv/clli, Matroska's colour
// elements) or frame side data (HEVC SEI, AV1 metadata OBUs). Read from a
// source, written into SVT-AV1's parameters and onto output streams (the mp4
// muxer turns stream side data into mdcv and clli boxes).
#include <optional>
#include <string>

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/mastering_display_metadata.h>
}

namespace ladder::av {

struct HdrMetadata {
    std::optional<AVMasteringDisplayMetadata> mastering;  // only with both primaries and luminance
    std::optional<AVContentLightMetadata> content_light;

    bool empty() const { return !mastering && !content_light; }
};

HdrMetadata hdr_of_stream(const AVStream* st);
HdrMetadata hdr_of_frame(const AVFrame* frame);

// ":mastering-display=G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min):content-light=CLL,FALL"
// for svtav1-params (what SVT-AV1 writes as metadata OBUs); "" when empty.
std::string svtav1_hdr_params(const HdrMetadata& hdr);

// Puts the metadata on an output stream before its header is written.
void add_hdr_side_data(AVStream* st, const HdrMetadata& hdr);

}  // namespace ladder::av
