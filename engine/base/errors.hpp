#pragma once
// Room engine/base/: the words every room shares: errors, progress events and the
// run's report, chunks and the memory they reserve, the run's threads.
// May include: no other room.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// The two kinds of failure the command line maps to exit codes: bad usage or
// unusable input (2) and a run that failed (1). Messages say what failed,
// where, and what to do.
#include <stdexcept>
#include <string>

namespace ladder::engine {

class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class RunError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A GPU encoder would not open (a driver's cap on sessions open at once,
// GPU memory): the slot's failure, not the chunk's, so it does not use up
// one of the chunk's tries; the slot is quarantined after enough of them.
class EncoderOpenRefused : public RunError {
public:
    using RunError::RunError;
};

// An encoder process crashed (cause "crash": killed by a signal, or exited)
// or hung (cause "hang": no frame taken and no packet for too long, then
// killed). Its chunk is retried like any failed chunk.
class EncoderProcessFailure : public RunError {
public:
    EncoderProcessFailure(std::string cause, const std::string& message)
        : RunError(message), cause_(std::move(cause)) {}
    const std::string& cause() const { return cause_; }

private:
    std::string cause_;
};

// An encoded chunk that does not decode to the frames it was made of (a
// corrupt packet, a frame missing): the encoder's failure, retried like a
// crash (cause "undecodable").
class UndecodableChunk : public RunError {
public:
    using RunError::RunError;
};

// Thrown out of blocking waits when the run is being stopped.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

}  // namespace ladder::engine
