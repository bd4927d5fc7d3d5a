#include "engine/process_encoder.hpp"

#include <fmt/format.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <vector>

#include "engine/encoder_messages.hpp"
#include "engine/errors.hpp"

namespace ladder::engine {

namespace {

using ipc::MessageType;

// Frames in flight per encoder process: enough that ladder copies the next
// frame while the encoder takes the last one (SVT-AV1 and libaom copy a
// frame into their own buffers when it is sent).
constexpr int kRingSlots = 3;

// Wakes a wait on the socket when the run is stopped.
class StopWake {
public:
    explicit StopWake(std::stop_token stop)
        : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), callback_(std::move(stop), [this] {
              const std::uint64_t one = 1;
              [[maybe_unused]] const ssize_t n = ::write(fd_.get(), &one, sizeof one);
          }) {}
    int fd() const { return fd_.get(); }

private:
    UniqueFd fd_;
    std::stop_callback<std::function<void()>> callback_;
};

class ProcessEncoder final : public EncoderBackend {
public:
    ProcessEncoder(EncoderProcesses& processes, gpu::EncoderSlot slot, EncoderSettings settings)
        : processes_(processes), slot_(std::move(slot)), settings_(settings) {}

    EncodedChunk encode(const RawChunk& chunk, std::stop_token stop) override {
        if (chunk.frames.empty()) throw RunError(fmt::format("chunk {} has no frames", chunk.index));
        EncoderProcesses::Slot& s = start();
        try {
            return encode_in(s, chunk, stop);
        } catch (const EncoderProcessFailure&) {
            throw;  // the process is gone already
        } catch (const EncoderError&) {
            throw;  // the process said why and waits for the next chunk
        } catch (...) {
            // Anything else left the process in the middle of a chunk.
            if (s.process) s.process->kill();
            s.process.reset();
            throw;
        }
    }

private:
    // What the encoder in the process reported (it stays usable).
    class EncoderError : public RunError {
    public:
        using RunError::RunError;
    };

    EncodedChunk encode_in(EncoderProcesses::Slot& s, const RawChunk& chunk, std::stop_token stop) {
        const AVFrame& first = *chunk.frames.front();
        if (first.hw_frames_ctx)
            throw RunError(fmt::format("{}: frames in GPU memory cannot go to an encoder process", slot_.label));
        const std::size_t bytes =
            slot_bytes_for({static_cast<AVPixelFormat>(first.format), first.width, first.height});
        if (!s.ring || s.ring->slot_bytes() < bytes) s.ring = std::make_unique<SharedFrameRing>(kRingSlots, bytes);

        const std::uint64_t request = ++s.requests;
        nlohmann::json req = {{"request", request},
                              {"slot", slot_to_json(slot_)},
                              {"settings", settings_to_json(settings_)},
                              {"chunk",
                               {{"rung", chunk.rung},
                                {"index", chunk.index},
                                {"first_frame", chunk.first_frame},
                                {"frames", chunk.frames.size()}}},
                              {"ring", {{"slots", s.ring->slots()}, {"slot_bytes", s.ring->slot_bytes()}}}};
        StopWake wake(stop);
        const auto stall = stall_limit(first.width, first.height);
        send(s, MessageType::chunk, req.dump(), s.ring->fd());

        EncodedChunk out;
        out.rung = chunk.rung;
        out.index = chunk.index;
        out.first_frame = chunk.first_frame;
        out.frame_count = static_cast<std::int64_t>(chunk.frames.size());
        out.slot_label = slot_.label;
        out.encoder = slot_.encoder;
        std::vector<int> free_slots;
        for (int i = kRingSlots - 1; i >= 0; --i) free_slots.push_back(i);
        std::size_t sent = 0;
        for (;;) {
            if (sent < chunk.frames.size() && !free_slots.empty()) {
                const int ring_slot = free_slots.back();
                free_slots.pop_back();
                const AVFrame& f = *chunk.frames[sent++];
                s.ring->write(ring_slot, f);
                send(s, MessageType::frame,
                     nlohmann::json{{"request", request}, {"slot", ring_slot}, {"properties", frame_properties(f)}}
                         .dump());
                continue;
            }
            ipc::Message m = receive(s, request, stall, wake.fd(), chunk);
            const nlohmann::json body = nlohmann::json::parse(m.json);
            switch (m.type) {
                case MessageType::released:
                    free_slots.push_back(body.at("slot").get<int>());
                    break;
                case MessageType::packet: {
                    av::PacketPtr pkt = av::make_packet();
                    if (av_new_packet(pkt.get(), static_cast<int>(m.bytes.size())) < 0) throw std::bad_alloc();
                    std::copy(m.bytes.begin(), m.bytes.end(), pkt->data);
                    pkt->pts = pkt->dts = body.at("pts").get<std::int64_t>();
                    pkt->duration = 1;
                    pkt->flags = body.at("flags").get<int>();
                    out.bytes += m.bytes.size();
                    out.packets.push_back(std::move(pkt));
                    break;
                }
                case MessageType::done:
                    out.codecpar = codecpar_from_json(body.at("codecpar"), m.bytes);
                    return out;
                case MessageType::error:
                    throw EncoderError(body.at("message").get<std::string>());
                default:
                    break;
            }
        }
    }

public:
    void probe() override {
        EncoderProcesses::Slot& s = start();
        const std::uint64_t request = ++s.requests;
        send(s, MessageType::probe,
             nlohmann::json{{"request", request}, {"slot", slot_to_json(slot_)}, {"settings", settings_to_json(settings_)}}
                 .dump());
        RawChunk none;
        ipc::Message m = receive(s, request, processes_.stall_timeout(), -1, none);
        if (m.type == MessageType::error)
            throw RunError(nlohmann::json::parse(m.json).at("message").get<std::string>());
    }

private:
    EncoderProcesses::Slot& start() {
        EncoderProcesses::Slot& s = processes_.slot(slot_.id);
        if (!s.process) {
            s.process = std::make_unique<EncoderProcess>();
            ++s.started;
        }
        return s;
    }

    std::chrono::milliseconds stall_limit(int width, int height) const {
        const double scale = std::max(1.0, static_cast<double>(width) * height / (1920.0 * 1080.0));
        return std::chrono::milliseconds(
            static_cast<long long>(static_cast<double>(processes_.stall_timeout().count()) * scale));
    }

    void send(EncoderProcesses::Slot& s, MessageType type, const std::string& json, int fd = -1) {
        try {
            s.process->socket().send(type, json, {}, fd);
        } catch (const ipc::PeerGone&) {
            lost(s, "crash", "");
        }
    }

    // The next message of this request; a process that ended, stalled or
    // was stopped is dealt with here.
    ipc::Message receive(EncoderProcesses::Slot& s, std::uint64_t request, std::chrono::milliseconds stall,
                         int wake_fd, const RawChunk& chunk) {
        for (;;) {
            switch (s.process->socket().wait(stall, wake_fd)) {
                case ipc::Socket::Wait::woken:
                    s.process->kill();
                    s.process.reset();
                    throw Cancelled();
                case ipc::Socket::Wait::timeout:
                    s.process->kill();
                    lost(s, "hang",
                         fmt::format("no frame taken and no packet for {:.0f} s in chunk {}: killed as hung",
                                     std::chrono::duration<double>(stall).count(), chunk.index));
                    break;
                case ipc::Socket::Wait::readable:
                    break;
            }
            try {
                ipc::Message m = s.process->socket().receive();
                const auto id = nlohmann::json::parse(m.json).value("request", std::uint64_t{0});
                if (id == request) return m;
            } catch (const ipc::PeerGone&) {
                lost(s, "crash", "");
            } catch (const nlohmann::json::exception& e) {
                s.process->kill();
                lost(s, "crash", fmt::format("it sent a malformed message ({})", e.what()));
            }
        }
    }

    [[noreturn]] void lost(EncoderProcesses::Slot& s, const std::string& cause, const std::string& why) {
        const pid_t pid = s.process->pid();
        const std::string ended = s.process->reap();
        s.process.reset();  // the next chunk on this slot starts a new one
        throw EncoderProcessFailure(
            cause, fmt::format("{} encoder process {} {}{}", slot_.encoder, pid, ended, why.empty() ? "" : ": " + why));
    }

    EncoderProcesses& processes_;
    gpu::EncoderSlot slot_;
    EncoderSettings settings_;
};

}  // namespace

EncoderProcesses::~EncoderProcesses() {
    // Every process reads the end of its socket at once, then each is reaped.
    for (auto& [id, s] : slots_)
        if (s->process) s->process->close_socket();
    slots_.clear();
}

EncoderProcesses::Slot& EncoderProcesses::slot(int id) {
    std::lock_guard lock(mu_);
    auto& s = slots_[id];
    if (!s) s = std::make_unique<Slot>();
    return *s;
}

std::map<int, int> EncoderProcesses::started() const {
    std::lock_guard lock(mu_);
    std::map<int, int> out;
    for (const auto& [id, s] : slots_) out[id] = s->started;
    return out;
}

EncoderFactory process_encoder_factory(EncoderProcesses& processes) {
    return [&processes](const gpu::EncoderSlot& slot, const EncoderSettings& settings) {
        if (slot.kind != gpu::DeviceKind::cpu) return make_encoder_backend(slot, settings);
        return make_process_encoder(processes, slot, settings);
    };
}

std::unique_ptr<EncoderBackend> make_process_encoder(EncoderProcesses& processes, const gpu::EncoderSlot& slot,
                                                     const EncoderSettings& settings) {
    return std::make_unique<ProcessEncoder>(processes, slot, settings);
}

}  // namespace ladder::engine
