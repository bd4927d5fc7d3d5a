#pragma once
// FFmpeg and SVT-AV1 write to stderr on their own. ladder keeps them to
// errors so its own output stays readable; LADDER_FFMPEG_LOG=warning|info|
// debug raises FFmpeg's level, SVT_LOG (SVT-AV1's own variable) is respected.
namespace ladder::av {

void quiet_library_logs();

}  // namespace ladder::av
