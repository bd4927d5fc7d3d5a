#!/usr/bin/env bash
# The three held-out clips of docs/benchmarks.md "Budget by default" (FFmpeg 5.1 lavfi sources,
# x264 near-lossless): a fractal zoom under temporal noise, a coloured Sierpinski pattern that
# fades to black and back, and full-range cuts (bars, a cellular automaton, testsrc2) at 854x480.
set -euo pipefail
ff="ffmpeg -hide_banner -loglevel error -y"
$ff -f lavfi -i "mandelbrot=size=1280x720:rate=25:start_scale=3:end_scale=0.0005,noise=alls=14:allf=t+u,format=yuv420p" \
  -t 8 -c:v libx264 -crf 12 -preset veryfast zoomnoise.mp4
$ff -f lavfi -i "sierpinski=size=960x540:rate=30:type=triangle:jump=40,hue=H=2*PI*t/4:s=1.3,format=yuv420p,split[a][b];[a]trim=0:4,fade=t=out:st=2.5:d=1.5[x];[b]trim=4:8,setpts=PTS-STARTPTS,fade=t=in:st=0.5:d=1.5[y];[x][y]concat=n=2:v=1" \
  -t 8 -c:v libx264 -crf 12 -preset veryfast lifefade.mp4
$ff -f lavfi -i "smptehdbars=size=854x480:rate=24" -f lavfi -i "cellauto=size=854x480:rate=24:rule=30" \
  -f lavfi -i "testsrc2=size=854x480:rate=24" \
  -filter_complex "[0]trim=0:2.5,setpts=PTS-STARTPTS[a];[1]trim=0:3,setpts=PTS-STARTPTS,format=yuv420p[b];[2]trim=0:2.5,setpts=PTS-STARTPTS[c];[a][b][c]concat=n=3:v=1,format=yuvj420p" \
  -c:v libx264 -crf 14 -preset veryfast -color_range pc cutsfull.mp4
# The 16-core run carried zoomnoise re-encoded smaller (the device takes 64 MiB):
$ff -i zoomnoise.mp4 -c:v libx264 -crf 22 -preset veryfast zoomnoise-crf22.mp4
