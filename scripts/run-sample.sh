#!/usr/bin/env bash
# Quick start (a): install dependencies, build, and encode the bundled sample
# clip (samples/sample.mp4, 1280x720, 10 s) into the default AV1 ladder, as
# CMAF/HLS (out/sample/master.m3u8) and one MP4 per rung from the same encode,
# then checks the HLS ladder with `ladder validate --decode`. The default ladder is
# trimmed to the source, so a 720p clip gives 720p, 540p and 360p (the 1080p
# rung is dropped: ladder never upscales).
#
# Usage: scripts/run-sample.sh [extra ladder encode options...]
#   e.g. scripts/run-sample.sh --preset 12          (faster, lower quality)
#        scripts/run-sample.sh --ladder samples/ladders/small.json
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

"$ROOT/scripts/install-deps.sh"
# The sample needs only the binary; scripts/run-tests.sh builds the tests.
"$ROOT/scripts/build.sh" --no-tests

OUTDIR="out/sample"
echo "run-sample.sh: ladder encode samples/sample.mp4 -o $OUTDIR --format both --overwrite $*"
build/release/ladder encode samples/sample.mp4 -o "$OUTDIR" --format both --overwrite "$@"

echo
echo "run-sample.sh: ladder validate --decode $OUTDIR"
build/release/ladder validate --decode "$OUTDIR"

echo
echo "run-sample.sh: outputs in $ROOT/$OUTDIR:"
echo "  HLS: $OUTDIR/master.m3u8 (serve $OUTDIR over HTTP and open master.m3u8 in an HLS player)"
for playlist in "$OUTDIR"/*/index.m3u8 "$OUTDIR"/audio/*/index.m3u8; do
  [[ -f "$playlist" ]] || continue
  dir="$(dirname "$playlist")"
  segments="$(grep -c '^seg_' "$playlist" || true)"
  bytes="$(du -cb "$dir"/*.m4s "$dir"/init.mp4 | tail -n1 | cut -f1)"
  printf '    %-30s %3s segments  %10s bytes\n' "$playlist" "$segments" "$bytes"
done
echo "  MP4 (one per rung):"
shopt -s nullglob
files=("$OUTDIR"/*.mp4)
if [[ ${#files[@]} -eq 0 ]]; then
  echo "run-sample.sh: no MP4 was written to $OUTDIR" >&2
  exit 1
fi
for f in "${files[@]}"; do
  size="$(stat -c %s "$f")"
  video="$(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,width,height \
    -of csv=p=0 "$f" | head -n1 || true)"
  audio="$(ffprobe -v error -select_streams a:0 -show_entries stream=codec_name,channels \
    -of csv=p=0 "$f" | head -n1 || true)"
  fmtinfo="$(ffprobe -v error -show_entries format=duration,bit_rate -of csv=p=0 "$f" || true)"
  IFS=, read -r vcodec vw vh <<<"${video:-none,0,0}"
  IFS=, read -r acodec ach <<<"${audio:-none,0}"
  IFS=, read -r dur br <<<"${fmtinfo:-0,0}"
  [[ "${dur:-}" =~ ^[0-9.]+$ ]] || dur=0
  [[ "${br:-}" =~ ^[0-9]+$ ]] || br=0
  printf '    %-28s %10s bytes  video %s %sx%s  audio %s %sch  %.2f s  %s kb/s\n' \
    "$f" "$size" "$vcodec" "$vw" "$vh" "$acodec" "${ach:-0}" "$dur" "$(( br / 1000 ))"
done
