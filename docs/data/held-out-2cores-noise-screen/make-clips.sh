#!/usr/bin/env bash
# The two held-out clips of docs/benchmarks.md "Two held-out clips on 2 cores" (2026-12-02).
set -euo pipefail
ffmpeg -v error -y -f lavfi -i "life=s=320x180:mold=10:r=30:ratio=0.1:death_color=#1a2b3c:life_color=#e0e0f0,scale=1280:720:flags=neighbor,scroll=v=0.004,format=yuv420p" \
  -t 8 -c:v libx264 -crf 14 -preset veryfast screen.mp4
ffmpeg -v error -y -f lavfi -i "gradients=s=1280x720:r=50:speed=0.05" \
  -vf "noise=alls=14:allf=t+u,fade=t=out:st=6:d=2,format=yuv420p" -t 8 -c:v libx264 -crf 16 -preset veryfast sportsfade.mp4
