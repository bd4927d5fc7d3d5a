#include "engine/encode/process/worker_socket.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ladder::engine::ipc {

namespace {

struct Header {
    std::uint32_t type;
    std::uint32_t json_size;
    std::uint64_t bytes_size;
};

// Far above any message ladder sends (a packet of a 4K key frame is a few
// MB); a larger header means the stream is corrupt.
constexpr std::uint64_t kMaxMessageBytes = 1ull << 30;

}  // namespace

std::pair<av::UniqueFd, av::UniqueFd> socket_pair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        throw std::runtime_error(fmt::format("creating a socket pair: {}", std::strerror(errno)));
    return {av::UniqueFd(fds[0]), av::UniqueFd(fds[1])};
}

void Socket::send(MessageType type, const std::string& json, std::span<const std::uint8_t> bytes, int pass_fd) {
    Header h{static_cast<std::uint32_t>(type), static_cast<std::uint32_t>(json.size()), bytes.size()};
    iovec iov[3] = {{&h, sizeof h},
                    {const_cast<char*>(json.data()), json.size()},
                    {const_cast<std::uint8_t*>(bytes.data()), bytes.size()}};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = 3;
    if (pass_fd >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
    }
    std::size_t left = sizeof h + json.size() + bytes.size();
    while (left > 0) {
        const ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE || errno == ECONNRESET) throw PeerGone("the encoder process closed its socket");
            throw std::runtime_error(fmt::format("writing to an encoder process: {}", std::strerror(errno)));
        }
        left -= static_cast<std::size_t>(n);
        // The descriptor went with the first bytes; skip what was written.
        msg.msg_control = nullptr;
        msg.msg_controllen = 0;
        std::size_t skip = static_cast<std::size_t>(n);
        while (msg.msg_iovlen > 0 && skip >= msg.msg_iov[0].iov_len) {
            skip -= msg.msg_iov[0].iov_len;
            ++msg.msg_iov;
            --msg.msg_iovlen;
        }
        if (msg.msg_iovlen > 0) {
            msg.msg_iov[0].iov_base = static_cast<char*>(msg.msg_iov[0].iov_base) + skip;
            msg.msg_iov[0].iov_len -= skip;
        }
    }
}

Socket::Wait Socket::wait(std::chrono::milliseconds timeout, int wake_fd) const {
    pollfd fds[2] = {{fd_.get(), POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        const int n = ::poll(fds, wake_fd >= 0 ? 2 : 1, static_cast<int>(std::max<long long>(0, left.count())));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(fmt::format("waiting for an encoder process: {}", std::strerror(errno)));
        if (wake_fd >= 0 && (fds[1].revents & POLLIN)) return Wait::woken;
        if (fds[0].revents) return Wait::readable;  // data, or the end of the stream
        if (n == 0) return Wait::timeout;
    }
}

void Socket::read_exact(void* data, std::size_t size, av::UniqueFd* fd_out) {
    auto* p = static_cast<char*>(data);
    while (size > 0) {
        iovec iov{p, size};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(fd_.get(), &msg, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == ECONNRESET) throw PeerGone("the encoder process closed its socket");
        if (n < 0) throw std::runtime_error(fmt::format("reading from an encoder process: {}", std::strerror(errno)));
        if (n == 0) throw PeerGone("the encoder process closed its socket");
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
            av::UniqueFd owned(fd);
            if (fd_out) *fd_out = std::move(owned);
        }
        p += n;
        size -= static_cast<std::size_t>(n);
    }
}

Message Socket::receive() {
    Header h{};
    Message m;
    read_exact(&h, sizeof h, &m.fd);
    if (h.json_size > kMaxMessageBytes || h.bytes_size > kMaxMessageBytes)
        throw std::runtime_error("an encoder process sent a malformed message");
    m.type = static_cast<MessageType>(h.type);
    m.json.resize(h.json_size);
    if (h.json_size) read_exact(m.json.data(), h.json_size, nullptr);
    m.bytes.resize(h.bytes_size);
    if (h.bytes_size) read_exact(m.bytes.data(), h.bytes_size, nullptr);
    return m;
}

}  // namespace ladder::engine::ipc
