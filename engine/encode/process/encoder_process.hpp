#pragma once
// An encoder process: ladder's own binary started again with one fixed
// argument (kEncoderProcessArgument) and a socket as fd 3, never through a
// shell and never with anything taken from the user. It runs libavcodec
// encoders for ladder (engine/encode/process/encoder_process_main.*), so that an encoder
// library that crashes, aborts or corrupts its heap takes down only this
// process and the chunks of the session it was encoding.
#include <sys/types.h>

#include <chrono>
#include <string>

#include "engine/encode/process/worker_socket.hpp"

namespace ladder::engine {

// argv[1] of an encoder process; main() hands such a process to
// run_encoder_process() before anything else.
inline constexpr const char* kEncoderProcessArgument = "--internal-encoder-process";
// The socket's descriptor in an encoder process.
inline constexpr int kEncoderProcessSocketFd = 3;

class EncoderProcess {
public:
    // Starts the process. Throws RunError when it cannot.
    EncoderProcess();
    // Closes the socket (the process exits on its own), then reaps it,
    // killing it if it has not exited within a second.
    ~EncoderProcess();
    EncoderProcess(const EncoderProcess&) = delete;
    EncoderProcess& operator=(const EncoderProcess&) = delete;

    ipc::Socket& socket() { return socket_; }
    pid_t pid() const { return pid_; }

    // Kills the process now (SIGKILL) and reaps it.
    void kill();
    // Kills the process now and leaves reaping it to the destructor (or
    // kill(), reap()): several are killed at once, then reaped.
    void kill_now() const;
    // How the process ended, after its socket closed: "was killed by signal
    // 11 (SIGSEGV)", "exited with status 1". Kills it if it has not ended
    // within a second.
    std::string reap();
    // Closes ladder's end of the socket: the process exits once it reads
    // the end (the destructor then reaps it without waiting long).
    void close_socket() { socket_ = ipc::Socket(av::UniqueFd()); }

private:
    std::string wait_for_end(std::chrono::milliseconds grace);

    pid_t pid_ = -1;
    ipc::Socket socket_{av::UniqueFd()};
    std::string ended_;  // set once reaped
};

}  // namespace ladder::engine
