#pragma once
// A demuxer opened on a file, plus decoder construction for its streams.
#include <memory>
#include <stop_token>
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
    // The run's stop: libavformat gives up its waits on this input when it
    // is requested (AVIOInterruptCB; reads then fail with AVERROR_EXIT).
    std::stop_token stop;
};

// Every file libavformat opens for it (the file, an image sequence's
// frames, what a playlist names) must be a regular file (av/regular_file.hpp):
// it is opened without blocking and checked first, and libavformat reads
// that very file (through /proc/self/fd), not the path again.
class InputFile {
public:
    // Opens and probes the input. Throws NotARegularFile for a FIFO, device
    // or socket; AvError when libavformat cannot open it
    // (AVERROR_DEMUXER_NOT_FOUND: the spec's demuxer is not in this build;
    // AVERROR_EXIT: spec.stop was requested).
    explicit InputFile(InputSpec spec);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    AVFormatContext* get() const { return ctx_.get(); }
    const std::string& path() const { return spec_.path; }
    const InputSpec& spec() const { return spec_; }

    // Index of the best stream of that type, or -1.
    int best_stream(AVMediaType type) const;

    // Reads the next packet, its timestamps repaired as the spec says;
    // false at end of file. Throws AvError on read errors (AVERROR_EXIT:
    // stopped), NotARegularFile when a file it opens now is not one (an
    // image sequence's next frame).
    bool read(AVPacket* pkt);

private:
    struct OpenGuard;  // what the context's callbacks read, at an address that stays
    static int open_regular_only(AVFormatContext* s, AVIOContext** pb, const char* url, int flags,
                                 AVDictionary** options);
    void rethrow_refusal() const;

    InputSpec spec_;
    std::unique_ptr<OpenGuard> guard_;
    InputFormatPtr ctx_;  // after guard_: closed before it goes
    PacketPositions positions_;  // for spec_.timeline
};

// Opens a decoder for the stream. threads = 0 lets libavcodec choose.
CodecContextPtr open_decoder(const AVStream* stream, int threads);

}  // namespace ladder::av
