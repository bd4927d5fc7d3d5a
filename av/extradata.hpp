#pragma once
// The stream header ("extradata") a packet carries in band, taken out with
// libavcodec's extract_extradata bitstream filter. For AV1 that is the
// sequence header OBU exactly as the key frame signals it — which is what
// av1C must hold. Encoder-provided extradata is not always that: libaom
// (FFmpeg 5.1) leaves it empty and SVT-AV1 1.4's differs from its in-band
// header in several enable_* flags.
#include <cstdint>
#include <vector>

#include "av/handles.hpp"

namespace ladder::av {

// Empty when the packet carries no stream header.
std::vector<std::uint8_t> extract_extradata(const AVPacket* pkt, const AVCodecParameters* par);

// Replaces par's extradata with a padded copy of data.
void set_extradata(AVCodecParameters* par, const std::vector<std::uint8_t>& data);

}  // namespace ladder::av
