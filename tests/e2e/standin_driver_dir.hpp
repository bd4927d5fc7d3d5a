#pragma once
// Where the build put the stand-in NVIDIA driver (tests/standin): null when
// it was not built (no nv-codec-headers 12.1), and the tests that need it say so.

namespace ladder::test {

#ifdef LADDER_STANDIN_DRIVER_DIR
inline constexpr const char* kStandInDriverDir = LADDER_STANDIN_DRIVER_DIR;
#else
inline constexpr const char* kStandInDriverDir = nullptr;
#endif

}  // namespace ladder::test
