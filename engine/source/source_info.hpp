#pragma once
// Opening and describing the source: the one place where "is this a usable
// video file" is decided, with errors that say what to do.
#include <filesystem>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include <vector>

#include "av/hdr_metadata.hpp"
#include "av/input_file.hpp"
#include "engine/media/audio_selection.hpp"
#include "engine/media/subtitle_selection.hpp"

namespace ladder::engine {

struct SourceInfo {
    std::string path;
    av::InputSpec opened_as;  // how to open it again (an image sequence: image2 and its options)
    int video_stream = -1;
    int width = 0;          // coded size
    int height = 0;
    AVRational sample_aspect{1, 1};
    int display_width = 0;  // width x SAR, turned by `rotation`, even
    int display_height = 0;
    int rotation = 0;         // clockwise degrees (0, 90, 180, 270) the decoded picture is turned for display
    bool interlaced = false;  // the stream says its frames are interlaced: the pump deinterlaces
    AVRational frame_rate{0, 1};  // the constant rate ladder outputs
    AVPixelFormat source_pix_fmt = AV_PIX_FMT_NONE;
    // RGB or grey samples (PNG, TIFF, DPX, EXR frames): the pump converts
    // them to YUV with `colorspace`'s matrix, limited range.
    bool rgb_picture = false;
    // The pump makes the samples limited range: RGB and grey pictures, and
    // every full-range YUV source (yuvj formats, or tagged full range at
    // any bit depth), so that what the outputs say (limited) is what their
    // pixels are. Such sources are decoded on the CPU (device_plan).
    bool to_limited_range = false;
    AVPixelFormat pix_fmt = AV_PIX_FMT_YUV420P;  // normalized format
    int bit_depth = 8;
    double duration_seconds = 0;
    std::int64_t estimated_frames = 0;
    std::string codec_name;
    std::vector<SourceAudioStream> audio_tracks;  // every audio stream of the file, in its order
    std::vector<SourceSubtitleStream> subtitle_tracks;  // every subtitle stream, in the file's order
    // --audio-file: audio_tracks are that file's (their stream indexes are
    // its streams); empty: the source's own.
    std::string audio_path;
    AVColorPrimaries color_primaries = AVCOL_PRI_UNSPECIFIED;
    AVColorTransferCharacteristic color_trc = AVCOL_TRC_UNSPECIFIED;
    AVColorSpace colorspace = AVCOL_SPC_UNSPECIFIED;
    AVColorRange color_range = AVCOL_RANGE_UNSPECIFIED;
    // HDR10 static metadata: from the container, or (PQ and HLG sources
    // without it there) from the first decoded frame (read_source_hdr).
    av::HdrMetadata hdr;
    // Where the timestamps jump (MPEG-TS and the like: repair_timeline).
    // Not empty: every reader puts them back in line (opened_as.timeline),
    // and the source is read in one pass from its start (no seeks by time).
    std::vector<av::TimestampJump> timestamp_jumps;
};

// Opens the file, or the image sequence a pattern such as img_%05d.png
// names (engine/source/image_sequence.hpp) at frame_rate, which only a sequence
// takes and needs. Throws InputError for a missing file, anything but a
// regular file (a FIFO, a device, a socket: av/regular_file.hpp), one
// libavformat cannot read as media, a sequence with a gap, and a frame rate
// given to the wrong kind of input or not given to a sequence; Cancelled
// when stop is requested while it is probed. stop goes into the input's
// spec: whoever opens it again is stopped by it too.
std::unique_ptr<av::InputFile> open_source(const std::filesystem::path& path,
                                           std::optional<AVRational> frame_rate = std::nullopt,
                                           std::stop_token stop = {});

// InputFile::read, except that a read the stop interrupted (AVERROR_EXIT,
// InputSpec::stop) throws Cancelled: it is no read error and no end of the
// file, which is what readers make of other errors.
bool read_or_cancel(av::InputFile& input, AVPacket* pkt);

// Describes an opened source; throws InputError when it has no usable video.
SourceInfo describe_source(const av::InputFile& input);

// Sources whose demuxer allows timestamp jumps (AVFMT_TS_DISCONT: MPEG-TS,
// MPEG-PS): reads the packets once and, where the video's timestamps jump
// more than a few frame durations either way, reopens `input` so that every
// reader sees one continuous timeline (av/timestamp_jumps.hpp); src's
// length, frame count and timestamp_jumps follow.
void repair_timeline(std::unique_ptr<av::InputFile>& input, SourceInfo& src);

// s.audio_tracks: every audio stream of this input.
void describe_audio(const av::InputFile& input, SourceInfo& s);

// The HDR metadata of a PQ or HLG source that its container does not carry:
// x265 writes it as SEI, which the decoder gives as the first frame's side
// data. Opens the source again and decodes up to its first frame; leaves
// src.hdr as it is for SDR sources or when the container had it.
void read_source_hdr(SourceInfo& src);

}  // namespace ladder::engine
