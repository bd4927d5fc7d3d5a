#pragma once
// A demuxer over bytes in memory: how `ladder validate` reads an HLS
// segment together with its init segment without writing a joined file.
// It reads fMP4 only and never opens anything else (no URL, no file).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "av/handles.hpp"

namespace ladder::av {

class MemoryInput {
public:
    // Opens and probes the bytes (name is for error messages). Throws AvError.
    MemoryInput(std::vector<std::uint8_t> bytes, const std::string& name);
    ~MemoryInput();
    MemoryInput(const MemoryInput&) = delete;
    MemoryInput& operator=(const MemoryInput&) = delete;

    AVFormatContext* get() const { return ctx_.get(); }
    // Next packet; false at the end.
    bool read(AVPacket* pkt);

private:
    static int on_read(void* opaque, std::uint8_t* buf, int size);
    static std::int64_t on_seek(void* opaque, std::int64_t offset, int whence);
    static const AVInputFormat* fmp4_demuxer();
    static int refuse_open(AVFormatContext* s, AVIOContext** pb, const char* url, int flags, AVDictionary** options);

    std::vector<std::uint8_t> bytes_;
    std::size_t pos_ = 0;
    std::string name_;
    AvioContextPtr io_;
    InputFormatPtr ctx_;
};

}  // namespace ladder::av
