#pragma once
// The encoder process's side (see engine/encode/process/encoder_process.hpp): reads work
// from its socket, runs it on a libavcodec encoder and answers. It serves
// one request at a time until ladder closes the socket.
namespace ladder::engine {

// Runs the process's loop on the socket `fd`; returns the exit status.
int run_encoder_process(int fd);

}  // namespace ladder::engine
