#include "engine/encode/process/process_encoder.hpp"

#include <fmt/format.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <vector>

#include "engine/encode/process/encoder_messages.hpp"
#include "engine/base/errors.hpp"
#include "engine/encode/backend/session_chunks.hpp"

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
    av::UniqueFd fd_;
    std::stop_callback<std::function<void()>> callback_;
};

class ProcessEncoder final : public EncoderBackend {
public:
    ProcessEncoder(EncoderProcesses& processes, gpu::EncoderSlot slot, EncoderSettings settings)
        : processes_(processes), slot_(std::move(slot)), settings_(settings), chunks_(slot_.encoder, slot_.label) {}

    // A session left open (its chunks were refused, or its worker gave up)
    // leaves the process in the middle of a stream: it goes, and the slot's
    // next session starts a new one.
    ~ProcessEncoder() override {
        if (!state_ || !open_ || !state_->process) return;
        state_->process->kill();
        state_->process.reset();
    }
    ProcessEncoder(const ProcessEncoder&) = delete;
    ProcessEncoder& operator=(const ProcessEncoder&) = delete;

    EncodedChunk encode(const RawChunk& chunk, std::stop_token stop) override {
        return encode_as_session(chunk, stop, slot_.label);
    }

    std::vector<EncodedChunk> send(const RawChunk& chunk, std::stop_token stop) override {
        if (chunk.frames.empty()) throw RunError(fmt::format("chunk {} has no frames", chunk.index));
        return guarded([&]() -> std::vector<EncodedChunk> {
            chunks_.expect(chunk.rung, chunk.index, chunk.first_frame, static_cast<std::int64_t>(chunk.frames.size()));
            send_in(chunk, stop);
            return stream_ ? chunks_.take_complete(*stream_) : std::vector<EncodedChunk>{};
        });
    }

    std::vector<EncodedChunk> finish(std::stop_token stop) override {
        if (!open_) return {};
        return guarded([&]() -> std::vector<EncodedChunk> {
            StopWake wake(stop);
            send(*state_, MessageType::flush, nlohmann::json{{"request", request_}}.dump());
            while (!pump(wake.fd(), true)) {
            }
            open_ = false;
            if (!stream_) throw RunError(fmt::format("{}: the encoder returned no packets", slot_.label));
            std::vector<EncodedChunk> rest = chunks_.take_rest(*stream_);
            // The session is over; the next send() starts another.
            chunks_.reset();
            stream_.reset();
            return rest;
        });
    }

private:
    // What the encoder in the process reported (it stays usable).
    class EncoderError : public RunError {
    public:
        using RunError::RunError;
    };

    template <typename Step>
    std::vector<EncodedChunk> guarded(Step&& step) {
        try {
            return step();
        } catch (const EncoderProcessFailure&) {
            forget_session();
            throw;  // the process is gone already
        } catch (const EncoderError&) {
            forget_session();
            throw;  // the process said why and waits for the next session
        } catch (...) {
            // Anything else left the process in the middle of a session.
            if (state_ && state_->process) state_->process->kill();
            if (state_) state_->process.reset();
            forget_session();
            throw;
        }
    }

    void forget_session() {
        open_ = false;
        chunks_.reset();
        stream_.reset();
    }

    void send_in(const RawChunk& chunk, std::stop_token stop) {
        const AVFrame& first = *chunk.frames.front();
        if (first.hw_frames_ctx)
            throw RunError(fmt::format("{}: frames in GPU memory cannot go to an encoder process", slot_.label));
        const nlohmann::json header = {{"rung", chunk.rung},
                                       {"index", chunk.index},
                                       {"first_frame", chunk.first_frame},
                                       {"frames", chunk.frames.size()}};
        if (!open_) {
            state_ = &start();
            EncoderProcesses::Slot& s = *state_;
            const std::size_t bytes =
                slot_bytes_for({static_cast<AVPixelFormat>(first.format), first.width, first.height});
            if (!s.ring || s.ring->slot_bytes() < bytes)
                s.ring = std::make_unique<SharedFrameRing>(kRingSlots, bytes);
            request_ = ++s.requests;
            stall_ = stall_limit(first.width, first.height);
            free_slots_.clear();
            for (int i = kRingSlots - 1; i >= 0; --i) free_slots_.push_back(i);
            const nlohmann::json req = {{"request", request_},
                                        {"slot", slot_to_json(slot_)},
                                        {"settings", settings_to_json(settings_)},
                                        {"chunk", header},
                                        {"ring", {{"slots", s.ring->slots()}, {"slot_bytes", s.ring->slot_bytes()}}}};
            send(s, MessageType::chunk, req.dump(), s.ring->fd());
            open_ = true;
        } else {
            send(*state_, MessageType::chunk, nlohmann::json{{"request", request_}, {"chunk", header}}.dump());
        }
        current_chunk_ = chunk.index;
        StopWake wake(stop);
        EncoderProcesses::Slot& s = *state_;
        for (std::size_t sent = 0; sent < chunk.frames.size();) {
            if (free_slots_.empty()) {
                pump(wake.fd(), false);
                continue;
            }
            const int ring_slot = free_slots_.back();
            free_slots_.pop_back();
            const AVFrame& f = *chunk.frames[sent++];
            s.ring->write(ring_slot, f);
            send(s, MessageType::frame,
                 nlohmann::json{{"request", request_}, {"slot", ring_slot}, {"properties", frame_properties(f)}}.dump());
        }
    }

    // Takes one message of the session; true once the encoder is done
    // (after a flush).
    bool pump(int wake_fd, bool flushing) {
        ipc::Message m = receive(*state_, request_, stall_, wake_fd, current_chunk_);
        const nlohmann::json body = nlohmann::json::parse(m.json);
        switch (m.type) {
            case MessageType::released:
                free_slots_.push_back(body.at("slot").get<int>());
                return false;
            case MessageType::stream:
                stream_ = codecpar_from_json(body.at("codecpar"), m.bytes);
                return false;
            case MessageType::packet: {
                av::PacketPtr pkt = av::make_packet();
                if (av_new_packet(pkt.get(), static_cast<int>(m.bytes.size())) < 0) throw std::bad_alloc();
                std::copy(m.bytes.begin(), m.bytes.end(), pkt->data);
                pkt->pts = pkt->dts = body.at("pts").get<std::int64_t>();
                pkt->flags = body.at("flags").get<int>();
                chunks_.add(std::move(pkt));
                return false;
            }
            case MessageType::done:
                return flushing;
            case MessageType::error:
                throw EncoderError(body.at("message").get<std::string>());
            default:
                return false;
        }
    }

public:
    void probe() override {
        EncoderProcesses::Slot& s = start();
        const std::uint64_t request = ++s.requests;
        send(s, MessageType::probe,
             nlohmann::json{{"request", request}, {"slot", slot_to_json(slot_)}, {"settings", settings_to_json(settings_)}}
                 .dump());
        ipc::Message m = receive(s, request, processes_.stall_timeout(), -1, -1);
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
                         int wake_fd, int chunk) {
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
                                     std::chrono::duration<double>(stall).count(), chunk));
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
    // The open session: the slot's process, its request, what came back.
    EncoderProcesses::Slot* state_ = nullptr;
    bool open_ = false;
    std::uint64_t request_ = 0;
    std::chrono::milliseconds stall_{0};
    std::vector<int> free_slots_;  // ring slots the encoder does not read
    int current_chunk_ = -1;
    SessionChunks chunks_;
    av::CodecParametersPtr stream_;
};

}  // namespace

EncoderProcesses::~EncoderProcesses() {
    // Every process reads the end of its socket at once, then each is reaped.
    for (auto& [id, s] : slots_)
        if (s->process) s->process->close_socket();
    slots_.clear();
}

void EncoderProcesses::kill_all() {
    std::lock_guard lock(mu_);
    for (auto& [id, s] : slots_)
        if (s->process) s->process->kill_now();
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
