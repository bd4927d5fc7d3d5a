#pragma once
// The channel between ladder and one of its encoder processes: a Unix stream
// socket carrying framed messages, each a type, a JSON text, optional bytes
// (packet data) and optionally one file descriptor (the shared frame ring).
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "av/unique_fd.hpp"

namespace ladder::engine::ipc {

enum class MessageType : std::uint32_t {
    // ladder → encoder process
    // The first chunk of a session (JSON: slot, settings, chunk; fd: the
    // frame ring) or the next one (JSON: chunk).
    chunk = 1,
    frame,  // JSON: ring slot and frame properties
    probe,  // JSON: slot, settings
    flush,  // the session's last chunk was sent
    // encoder process → ladder
    released,  // JSON: a ring slot the encoder no longer reads
    packet,    // JSON: pts, flags; bytes: the packet
    done,      // after a flush or a probe
    error,     // JSON: message
    stream,    // the encoder opened; JSON: stream parameters; bytes: extradata
};

struct Message {
    MessageType type{};
    std::string json;
    std::vector<std::uint8_t> bytes;
    av::UniqueFd fd;
};

// The other end closed the socket (it exited or was killed).
class PeerGone : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Returns a connected pair of sockets (close-on-exec).
std::pair<av::UniqueFd, av::UniqueFd> socket_pair();

class Socket {
public:
    explicit Socket(av::UniqueFd fd) : fd_(std::move(fd)) {}

    // Sends one whole message. Throws PeerGone when the other end is gone.
    void send(MessageType type, const std::string& json, std::span<const std::uint8_t> bytes = {},
              int pass_fd = -1);

    enum class Wait { readable, timeout, woken };
    // Waits until a message can be read, `timeout` passes, or wake_fd
    // (an eventfd, or -1) becomes readable.
    Wait wait(std::chrono::milliseconds timeout, int wake_fd) const;

    // Reads one whole message (blocks). Throws PeerGone at the end of the
    // stream, std::runtime_error on a malformed message.
    Message receive();

    int fd() const { return fd_.get(); }

private:
    void read_exact(void* data, std::size_t size, av::UniqueFd* fd_out);
    av::UniqueFd fd_;
};

}  // namespace ladder::engine::ipc
