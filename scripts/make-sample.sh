#!/usr/bin/env bash
# Regenerate samples/sample.mp4 from FFmpeg's built-in (lavfi) sources: no
# external media. 1280x720, 25 fps, 10 s (250 frames), H.264 (libx264,
# yuv420p) + stereo AAC 48 kHz, faststart. About 2 MB.
#
# Picture: the testsrc2 test pattern (moving colour bars, counter, gradients)
# with a 480x270 zooming Mandelbrot set overlaid in the bottom-right corner,
# so the clip has both flat areas and fine, changing detail.
# Sound: 440 Hz tone on the left channel, 660 Hz beeping tone on the right.
#
# The result is committed; run this only to recreate it (needs ffmpeg with
# libx264, e.g. Debian's ffmpeg package). libx264 output can differ in bytes
# between versions, never in format.
#
# Usage: scripts/make-sample.sh [OUTPUT]   (default: samples/sample.mp4)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/samples/sample.mp4}"

ffmpeg -hide_banner -loglevel error -y \
  -filter_complex "testsrc2=size=1280x720:rate=25:duration=10[bg];mandelbrot=size=480x270:rate=25[m];[bg][m]overlay=x=W-w-40:y=H-h-40:shortest=1,format=yuv420p[v];sine=frequency=440:sample_rate=48000:duration=10[l];sine=frequency=660:sample_rate=48000:duration=10:beep_factor=4[r];[l][r]join=inputs=2:channel_layout=stereo[a]" \
  -map "[v]" -map "[a]" \
  -c:v libx264 -preset medium -crf 23 -g 50 -pix_fmt yuv420p \
  -c:a aac -b:a 128k \
  -movflags +faststart \
  "$OUT"

echo "make-sample.sh: wrote $OUT ($(stat -c %s "$OUT") bytes)"
if command -v ffprobe >/dev/null 2>&1; then
  ffprobe -v error -count_frames \
    -show_entries stream=codec_type,codec_name,width,height,r_frame_rate,nb_read_frames,channels,sample_rate:format=duration \
    -of compact "$OUT"
fi
