#!/usr/bin/env bash
# The 1080p corpus these measurements ran on: scripts/make-corpus.sh at
# 8 s, then re-encoded (libx264 veryfast) small enough to travel to the
# lent machine with the GPU bundle (64 MiB in all). The travel re-encode
# smooths the grain and noise of some clips (film-grain above all): these
# are not the CRF-12 clips of earlier sections.
set -euo pipefail
OUT="${1:?usage: make-travel-corpus.sh OUTDIR}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
scripts/make-corpus.sh "$tmp" --seconds 8 --crf 22
mkdir -p "$OUT"
for f in "$tmp"/*.mp4; do
  name="$(basename "$f" .mp4)"
  case "$name" in
    automaton) crf=38 ;;
    high-motion) crf=32 ;;
    *) crf=30 ;;
  esac
  ffmpeg -loglevel error -y -i "$f" -c:v libx264 -preset veryfast -crf "$crf" -threads 2 "$OUT/$name.mp4"
done
cp "$tmp/corpus.json" "$OUT/"
