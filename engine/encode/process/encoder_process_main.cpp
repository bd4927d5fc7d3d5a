#include "engine/encode/process/encoder_process_main.hpp"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <initializer_list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <span>

#include "av/logging.hpp"
#include "engine/encode/process/encoder_messages.hpp"
#include "engine/encode/backend/libavcodec_encoder.hpp"
#include "engine/encode/process/shared_frame_ring.hpp"

namespace ladder::engine {

namespace {

using ipc::MessageType;

// The socket, shared by the loop and the frame release callbacks (which
// run wherever libavcodec drops a frame's last reference).
class Replies {
public:
    explicit Replies(ipc::Socket& socket) : socket_(socket) {}

    void send(MessageType type, nlohmann::json body, std::uint64_t request,
              std::span<const std::uint8_t> bytes = {}) {
        body["request"] = request;
        const std::string text = body.dump();
        std::lock_guard lock(mu_);
        socket_.send(type, text, bytes);
    }

private:
    ipc::Socket& socket_;
    std::mutex mu_;  // Replies' own: one message at a time on the socket; a leaf
};

// Messages for a request other than the current one (frames ladder sent
// before it read this process's error) are dropped.
ipc::Message next_for(ipc::Socket& socket, std::uint64_t request, std::initializer_list<MessageType> types) {
    for (;;) {
        ipc::Message m = socket.receive();
        if (std::find(types.begin(), types.end(), m.type) == types.end()) continue;
        if (nlohmann::json::parse(m.json).at("request").get<std::uint64_t>() == request) return m;
    }
}

// Left to malloc, a process keeps the heap of the largest encoder it ever
// ran (a 1080p SVT-AV1 instance is hundreds of MB) while it goes on with
// smaller rungs; in one process that memory would serve the other encoders.
// So the heap is given back when the next encoder is smaller than the last
// one, and kept (no page faults to refill it) while it is not.
void trim_heap_before(const EncoderSettings& next) {
    static long long last_pixels = 0;
    const long long pixels = static_cast<long long>(next.width) * next.height;
    if (pixels < last_pixels) ::malloc_trim(0);
    last_pixels = pixels;
}

// One encoder session: chunk messages, each followed by its frames, until
// the flush.
void encode_session(ipc::Socket& socket, Replies& replies, const nlohmann::json& req, av::UniqueFd ring_fd) {
    const std::uint64_t request = req.at("request").get<std::uint64_t>();
    const MappedFrameRing ring(std::move(ring_fd), req.at("ring").at("slots").get<int>(),
                               req.at("ring").at("slot_bytes").get<std::size_t>());
    const EncoderSettings settings = settings_from_json(req.at("settings"));
    trim_heap_before(settings);
    LibavcodecEncoder encoder(slot_from_json(req.at("slot")), settings);
    bool stream_told = false;
    const PacketSink forward = [&](av::PacketPtr pkt) {
        if (!stream_told) {
            // Before the first packet: the parent splits the packets into
            // chunks with these parameters.
            const AVCodecParameters& par = *encoder.stream_parameters();
            replies.send(MessageType::stream, {{"codecpar", codecpar_to_json(par)}}, request,
                         {par.extradata, static_cast<std::size_t>(par.extradata_size)});
            stream_told = true;
        }
        replies.send(MessageType::packet, {{"pts", pkt->pts}, {"flags", pkt->flags}}, request,
                     {pkt->data, static_cast<std::size_t>(pkt->size)});
    };
    nlohmann::json chunk = req.at("chunk");
    for (;;) {
        ChunkFrames frames;
        frames.rung = chunk.at("rung").get<int>();
        frames.index = chunk.at("index").get<int>();
        frames.first_frame = chunk.at("first_frame").get<std::int64_t>();
        frames.count = chunk.at("frames").get<int>();
        frames.next = [&] {
            const ipc::Message m = next_for(socket, request, {MessageType::frame});
            const nlohmann::json f = nlohmann::json::parse(m.json);
            const int slot = f.at("slot").get<int>();
            return ring.frame(slot, f.at("properties"), [&replies, request, slot] {
                // Runs inside libavcodec (C): nothing may be thrown through it.
                // A failed send means ladder is gone; the next read says so.
                try {
                    replies.send(MessageType::released, {{"slot", slot}}, request);
                } catch (...) {
                }
            });
        };
        encoder.feed(frames, forward, {});
        const ipc::Message m = next_for(socket, request, {MessageType::chunk, MessageType::flush});
        if (m.type == MessageType::flush) break;
        chunk = nlohmann::json::parse(m.json).at("chunk");
    }
    encoder.flush(forward, {});
    replies.send(MessageType::done, nlohmann::json::object(), request);
}

void serve(ipc::Socket& socket) {
    Replies replies(socket);
    for (;;) {
        ipc::Message m = socket.receive();  // PeerGone: ladder is done with us
        if (m.type != MessageType::chunk && m.type != MessageType::probe) continue;  // stale frames
        const nlohmann::json req = nlohmann::json::parse(m.json);
        // A session's next chunk after its encoder failed: stale too.
        if (m.type == MessageType::chunk && !req.contains("settings")) continue;
        const std::uint64_t request = req.at("request").get<std::uint64_t>();
        try {
            if (m.type == MessageType::probe) {
                LibavcodecEncoder(slot_from_json(req.at("slot")), settings_from_json(req.at("settings"))).probe();
                replies.send(MessageType::done, nlohmann::json::object(), request);
            } else {
                encode_session(socket, replies, req, std::move(m.fd));
            }
        } catch (const ipc::PeerGone&) {
            throw;
        } catch (const std::exception& e) {
            replies.send(MessageType::error, {{"message", e.what()}}, request);
        }
    }
}

}  // namespace

int run_encoder_process(int fd) {
    // Nothing but the standard descriptors and the socket: a descriptor
    // inherited by accident (a pipe's write end) could keep a reader in
    // ladder waiting for an end that never comes.
    ::close_range(static_cast<unsigned>(fd) + 1, ~0U, 0);
    // ladder decides when this process ends: an interrupt at the terminal
    // reaches the whole process group, and ladder stops (and kills) its
    // encoder processes itself.
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGTERM, SIG_IGN);
    std::signal(SIGPIPE, SIG_IGN);
    av::quiet_library_logs();
    ipc::Socket socket{av::UniqueFd(fd)};
    try {
        serve(socket);
    } catch (const ipc::PeerGone&) {
        return 0;
    } catch (const std::exception&) {
        return 1;
    }
    return 0;
}

}  // namespace ladder::engine
