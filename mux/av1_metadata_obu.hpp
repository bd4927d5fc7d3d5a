#pragma once
// AV1 metadata OBUs for HDR10 static metadata (AV1 spec 5.8 and 6.7:
// metadata_type HDR_CLL = 1, HDR_MDCV = 2), for encoders whose FFmpeg
// wrapper writes none (libaom-av1 passes only ITU-T T.35 metadata, av1_nvenc
// none): ladder puts them into each key frame's temporal unit, before its
// first frame OBU, as SVT-AV1 does itself.
#include <cstdint>
#include <span>
#include <vector>

#include "av/hdr_metadata.hpp"

namespace ladder::mux {

// The OBUs (with size fields) for what hdr holds; empty when it is empty.
std::vector<std::uint8_t> hdr_metadata_obus(const av::HdrMetadata& hdr);

// Inserts obus before the packet's first frame, frame header or tile group
// OBU. False (packet unchanged) when its OBUs cannot be walked (an OBU
// without a size field, or a size past the end).
bool insert_before_first_frame(AVPacket* pkt, std::span<const std::uint8_t> obus);

}  // namespace ladder::mux
