// NVENC sessions counted across processes, as a GeForce driver counts them:
// one file per open session in the stand-in's state directory (so the count
// survives FFmpeg unloading the library), claimed under an flock.
#pragma once

#include <string>

namespace ladder::standin {

class SessionClaim {
public:
    // status: 0 when claimed; else the NVENCSTATUS a real driver answers
    // (NV_ENC_ERR_OUT_OF_MEMORY over a limit, NV_ENC_ERR_DEVICE_NOT_EXIST on a
    // lost GPU).
    static SessionClaim claim(int gpu);
    SessionClaim(SessionClaim&& other) noexcept;
    SessionClaim& operator=(SessionClaim&&) = delete;
    SessionClaim(const SessionClaim&) = delete;
    ~SessionClaim();

    int status() const { return status_; }

private:
    SessionClaim(int status, std::string file) : status_(status), file_(std::move(file)) {}
    int status_;
    std::string file_;
};

// A lost GPU stays lost for every process that uses the same state directory.
void mark_lost(int gpu);
bool is_lost(int gpu);

}  // namespace ladder::standin
