#pragma once
// Raw frames on their way into an encoder process: a few frame-sized slots
// in one shared memory file (memfd). ladder copies a frame into a free slot
// and names the slot in a message; the encoder process maps the file
// read-only and hands the slot to the encoder as an AVFrame without a copy,
// and says when the encoder let go of it. A stray write by the encoder into
// a slot faults in its own process, never in ladder's memory.
#include <cstddef>
#include <functional>

#include <nlohmann/json_fwd.hpp>

#include "av/handles.hpp"
#include "engine/encode/process/worker_socket.hpp"

namespace ladder::engine {

// How a frame lies in its slot: planes at av_image_fill_arrays offsets with
// this alignment, so both sides compute the same pointers.
struct SlotFrameLayout {
    AVPixelFormat format = AV_PIX_FMT_NONE;
    int width = 0;
    int height = 0;
};

// Bytes of one slot for frames of this layout.
std::size_t slot_bytes_for(const SlotFrameLayout& layout);

// The frame's properties that travel with it (layout, colour, aspect).
nlohmann::json frame_properties(const AVFrame& frame);

class SharedFrameRing {  // ladder's side
public:
    SharedFrameRing(int slots, std::size_t slot_bytes);
    ~SharedFrameRing();
    SharedFrameRing(const SharedFrameRing&) = delete;
    SharedFrameRing& operator=(const SharedFrameRing&) = delete;

    int slots() const { return slots_; }
    std::size_t slot_bytes() const { return slot_bytes_; }
    int fd() const { return fd_.get(); }
    // Copies a CPU frame into a slot. Throws RunError if it does not fit.
    void write(int slot, const AVFrame& frame);

private:
    int slots_;
    std::size_t slot_bytes_;
    av::UniqueFd fd_;
    void* map_ = nullptr;
};

class MappedFrameRing {  // the encoder process's side
public:
    MappedFrameRing(av::UniqueFd fd, int slots, std::size_t slot_bytes);
    ~MappedFrameRing();
    MappedFrameRing(const MappedFrameRing&) = delete;
    MappedFrameRing& operator=(const MappedFrameRing&) = delete;

    // The frame in `slot` described by `properties` (frame_properties());
    // on_release runs when the last reference to it goes.
    av::FramePtr frame(int slot, const nlohmann::json& properties, std::function<void()> on_release) const;

private:
    int slots_;
    std::size_t slot_bytes_;
    void* map_ = nullptr;
};

}  // namespace ladder::engine
