#!/usr/bin/env bash
# The 72-s mixed 1080p clip of docs/benchmarks.md ("A long mixed source"):
# the nine 8-s clips of the 1080p travel corpus (make-travel-corpus.sh in
# docs/data/rate-control-auto-1080p/) one after the other, each at 25 fps.
# Usage: make-long-clip.sh CORPUS_DIR OUT.mp4
set -euo pipefail
dir="$1"; out="$2"
inputs=(); filters=""; labels=""; i=0
for f in "$dir"/*.mp4; do
  inputs+=(-i "$f")
  filters+="[$i:v]fps=25,setsar=1,format=yuv420p,setpts=PTS-STARTPTS[v$i];"
  labels+="[v$i]"; i=$((i + 1))
done
ffmpeg -v error -y "${inputs[@]}" -filter_complex "${filters}${labels}concat=n=$i:v=1:a=0[out]" -map "[out]" \
  -c:v libx264 -preset veryfast -crf 34 "$out"
