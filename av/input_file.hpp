#pragma once
// A demuxer opened on a file, plus decoder construction for its streams.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "av/handles.hpp"
#include "av/timestamp_jumps.hpp"

namespace ladder::av {

// How to open an input: the path, and for inputs that are not one file (an
// image sequence's printf pattern) the demuxer and its options. Whoever opens
// the same input again (decode lanes, the cut search, the audio reader) opens
// it the same way.
struct InputSpec {
    InputSpec() = default;
    InputSpec(std::string file) : path(std::move(file)) {}  // NOLINT: a plain path is the common case
    std::string path;
    std::string format;  // demuxer name; empty: probed from the file
    std::vector<std::pair<std::string, std::string>> options;  // the demuxer's private options
    // Where the file's timestamps jump and how each reader puts them back
    // in line (av/timestamp_jumps.hpp); null: read them as written.
    std::shared_ptr<const TimelineRepair> timeline;
};

class InputFile {
public:
    // Opens and probes the input. Throws AvError when libavformat cannot
    // (AVERROR_DEMUXER_NOT_FOUND: the spec's demuxer is not in this build).
    explicit InputFile(InputSpec spec);

    AVFormatContext* get() const { return ctx_.get(); }
    const std::string& path() const { return spec_.path; }
    const InputSpec& spec() const { return spec_; }

    // Index of the best stream of that type, or -1.
    int best_stream(AVMediaType type) const;

    // Reads the next packet, its timestamps repaired as the spec says;
    // false at end of file. Throws on read errors.
    bool read(AVPacket* pkt);

private:
    InputSpec spec_;
    InputFormatPtr ctx_;
    PacketPositions positions_;  // for spec_.timeline
};

// Opens a decoder for the stream. threads = 0 lets libavcodec choose.
CodecContextPtr open_decoder(const AVStream* stream, int threads);

}  // namespace ladder::av
