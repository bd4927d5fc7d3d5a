#pragma once
// A demuxer opened on a file, plus decoder construction for its streams.
#include <string>

#include "av/handles.hpp"

namespace ladder::av {

class InputFile {
public:
    // Opens and probes the file. Throws AvError when libavformat cannot.
    explicit InputFile(const std::string& path);

    AVFormatContext* get() const { return ctx_.get(); }
    const std::string& path() const { return path_; }

    // Index of the best stream of that type, or -1.
    int best_stream(AVMediaType type) const;

    // Reads the next packet; false at end of file. Throws on read errors.
    bool read(AVPacket* pkt);

private:
    std::string path_;
    InputFormatPtr ctx_;
};

// Opens a decoder for the stream. threads = 0 lets libavcodec choose.
CodecContextPtr open_decoder(const AVStream* stream, int threads);

}  // namespace ladder::av
