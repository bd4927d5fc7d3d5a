#!/usr/bin/env bash
# The benchmark corpus: nine clips of different kinds of content, made from
# FFmpeg's built-in (lavfi) sources and filters only (no external media, so
# nothing to license: the clips can be regenerated and redistributed freely).
# Every random source has a fixed seed, so a run makes the same pictures each
# time; with the same FFmpeg and libx264 the files are identical byte for byte
# (libx264 runs with a fixed 4 threads, so the machine's core count does not
# change its output; other libx264 versions give other bytes of the same
# pictures).
#
#   talking-head   29.97 fps  mostly static: a defocused background, a lower
#                             third, one small region that sways, blinks and
#                             "talks", light sensor noise
#   high-motion    50 fps     a fast pan (up to about one frame width a second)
#                             over a detailed fractal still, plus a spinning
#                             object crossing the frame
#   film-grain     25 fps     a soft, slowly panning picture under heavy
#                             temporal Gaussian grain (luma and chroma)
#   animation      25 fps     flat colours and hard edges: sky, sun, a drifting
#                             cloud, a bouncing character, a blocky Game-of-Life
#                             "screen" and a Sierpinski-carpet ground
#   scene-cuts     25 fps     a hard cut every 78 frames (3.12 s, never on a 2 s
#                             chunk boundary) between eight unrelated sources
#   fade-gradient  25 fps     slowly turning smooth gradients: a fade in from
#                             black, a long cross-fade to other gradients, a
#                             fade out to black (banding, fades)
#   dips           25 fps     noisy motion, a zoom and flat colour, dipping to
#                             black and back every 2 s (the content of
#                             make-varied-clip.sh's "fades" kind)
#   automaton      25 fps     high-entropy motion: a Day & Night automaton over the
#                             whole frame under moving colour gradients, and a
#                             chaotic (rule 30) cellular automaton scrolling in
#                             a band across it
#   black-hold     25 fps     moving detail that fades out to black, stays
#                             black for a quarter of the clip (longer than a
#                             chunk), and fades back in
#
# Each clip is OUTDIR/NAME.mp4: H.264 (libx264 -preset veryfast -crf CRF,
# default 12: a high-quality mezzanine), yuv420p, no audio, faststart.
# OUTDIR/corpus.json lists the clips (name, kind, size, rate, frames,
# duration, bytes, MD5, what each stresses, seconds to make). scripts/bench
# --corpus OUTDIR benchmarks them all in one call (docs/benchmarks.md).
#
# Usage: scripts/make-corpus.sh OUTDIR [--seconds S] [--size WxH] [--crf N]
#                               [--clips NAME,NAME,...]
#        defaults: 24 s, 1920x1080, CRF 12, every clip. Needs ffmpeg (5.1 or
#        later) with libx264. Run it under nice on a shared machine.
set -euo pipefail

usage() {
  echo "usage: make-corpus.sh OUTDIR [--seconds S] [--size WxH] [--crf N] [--clips NAME,...]" >&2
  exit 2
}

ALL_CLIPS="talking-head,high-motion,film-grain,animation,scene-cuts,fade-gradient,dips,automaton,black-hold"
OUT=""
S=24
SIZE=1920x1080
CRF=12
CLIPS="$ALL_CLIPS"
FFMPEG="${FFMPEG:-ffmpeg}"
while (($#)); do
  case "$1" in
    --seconds) S="${2:?}"; shift 2 ;;
    --size) SIZE="${2:?}"; shift 2 ;;
    --crf) CRF="${2:?}"; shift 2 ;;
    --clips) CLIPS="${2:?}"; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "make-corpus.sh: unknown option $1" >&2; usage ;;
    *) [[ -z "$OUT" ]] || usage; OUT="$1"; shift ;;
  esac
done
[[ -n "$OUT" ]] || usage
[[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "make-corpus.sh: --size WxH, e.g. 1920x1080" >&2; exit 2; }
W="${BASH_REMATCH[1]}"
H="${BASH_REMATCH[2]}"
((W >= 64 && H >= 64 && W % 2 == 0 && H % 2 == 0)) || { echo "make-corpus.sh: --size: even, at least 64x64" >&2; exit 2; }
if ! [[ "$S" =~ ^[0-9]+([.][0-9]+)?$ ]] || ! awk -v s="$S" 'BEGIN { exit !(s >= 1) }'; then
  echo "make-corpus.sh: --seconds: a number, at least 1" >&2
  exit 2
fi
for c in ${CLIPS//,/ }; do
  [[ ",$ALL_CLIPS," == *",$c,"* ]] || { echo "make-corpus.sh: --clips: $c is not one of $ALL_CLIPS" >&2; exit 2; }
done
command -v "$FFMPEG" >/dev/null || { echo "make-corpus.sh: $FFMPEG not found" >&2; exit 2; }
mkdir -p "$OUT"

# Arithmetic helpers: an even integer of an awk expression; a decimal.
even() { awk "BEGIN { v = int(($1) / 2 + 0.5) * 2; print (v < 2 ? 2 : v) }"; }
num() { awk "BEGIN { printf \"%.3f\", $1 }"; }
# Frames of S seconds at RATE (a fraction): rounded up, so no clip is shorter.
frames_of() { awk -v s="$S" -v r="$1" 'BEGIN { split(r, a, "/"); f = s * a[1] / (a[2] ? a[2] : 1); n = int(f); if (n < f - 1e-9) n++; print n }'; }

# encode NAME RATE GRAPH: the graph's [v] output, FRAMES frames, to NAME.mp4.
encode() {
  local name="$1" rate="$2" graph="$3" n
  n=$(frames_of "$rate")
  "$FFMPEG" -hide_banner -nostdin -loglevel error -y -filter_complex "$graph" -map "[v]" -frames:v "$n" \
    -c:v libx264 -preset veryfast -crf "$CRF" -threads 4 -pix_fmt yuv420p \
    -map_metadata -1 -fflags +bitexact -movflags +faststart -an "$OUT/.$name.part.mp4"
  mv -f "$OUT/.$name.part.mp4" "$OUT/$name.mp4"
}

# A still made once and repeated at RATE (loop + setpts: later filters see
# a normal RATE stream whose every frame is this one).
still() { echo "trim=end_frame=1,$1loop=loop=-1:size=1,setpts=N/FRAME_RATE/TB"; }

clip_talking_head() {
  local R=30000/1001 pw ph
  pw=$(even "$W / 3"); ph=$(even "$H * 0.75")
  encode talking-head "$R" "
mandelbrot=s=${W}x${H}:r=$R:start_x=-0.75:start_y=0.1:start_scale=1.5:end_pts=1:maxiter=300,$(still "gblur=sigma=$(num "$H / 45"),"),
drawbox=x=iw*0.05:y=ih*0.8:w=iw*0.45:h=ih*0.08:c=0x202060@0.85:t=fill,
drawbox=x=iw*0.06:y=ih*0.82:w=iw*0.25:h=ih*0.015:c=0xE0E0E0:t=fill[bg];
mandelbrot=s=${pw}x${ph}:r=$R:start_x=-0.7436:start_y=0.1318:start_scale=0.01:end_pts=1:maxiter=400,$(still "gblur=sigma=$(num "$H / 540"),"),
drawbox=x=iw*0.25:y=ih*0.3:w=iw*0.14:h=ih*0.025:c=0x301010:t=fill:enable='lt(mod(t\,3.3)\,0.15)',
drawbox=x=iw*0.61:y=ih*0.3:w=iw*0.14:h=ih*0.025:c=0x301010:t=fill:enable='lt(mod(t\,3.3)\,0.15)',
drawbox=x=iw*0.36:y=ih*0.55:w=iw*0.28:h=ih*0.05:c=0x400000:t=fill:enable='lt(mod(t\,0.37)\,0.2)*lt(mod(t\,7)\,5)',
rotate=a='0.015*sin(2*PI*t/2.9)':c=0x00000000,format=yuva420p[person];
[bg][person]overlay=x='W/3+W*0.004*sin(2*PI*t/3.7)':y='H*0.15+H*0.004*sin(2*PI*t/2.3)',
noise=c0s=4:all_seed=1101,format=yuv420p[v]"
}

clip_high_motion() {
  local R=50 ow
  ow=$(even "$W / 4")
  encode high-motion "$R" "
mandelbrot=s=$((2 * W))x$((2 * H)):r=$R:start_scale=0.02:end_pts=1:maxiter=500,$(still ""),split[t1][t2];
[t1]crop=w=$W:h=$H:x='(iw-ow)/2*(1+sin(2*PI*t/3.3))':y='(ih-oh)/2*(1+sin(2*PI*t/2.1+1))'[bg];
[t2]crop=w=$ow:h=$ow:x=iw/3:y=ih/4,rotate=a=2.5*t:c=0x202020[obj];
[bg][obj]overlay=x='mod(t*W*0.7\,W+w)-w':y='H/2-h/2+H/4*sin(2*PI*t/1.7)',format=yuv420p[v]"
}

clip_film_grain() {
  local R=25
  encode film-grain "$R" "
mandelbrot=s=$(even "$W * 1.25")x$(even "$H * 1.25"):r=$R:start_x=-0.5:start_y=0:start_scale=2.2:end_pts=1:maxiter=200,$(still "gblur=sigma=$(num "$H / 180"),"),
crop=w=$W:h=$H:x='(iw-ow)*t/$S':y='(ih-oh)*(0.5+0.5*sin(2*PI*t/$S))',
noise=c0s=12:c0f=t:c1s=4:c1f=t:c2s=4:c2f=t:all_seed=3303,format=yuv420p[v]"
}

clip_animation() {
  local R=25
  encode animation "$R" "
color=c=0x7EC8E3:s=${W}x${H}:r=${R}[sky];
sierpinski=s=${W}x$(even "$H / 3"):r=$R:seed=5:jump=4:type=carpet,
lutrgb=r='if(gt(val\,128)\,70\,30)':g='if(gt(val\,128)\,160\,90)':b='if(gt(val\,128)\,80\,40)'[ground];
life=s=48x27:r=$R:seed=11:ratio=0.3:mold=16:life_color=0xFFD23F:death_color=0x3B1F5E:mold_color=0xEE4266,
scale=$(even "$W / 4"):$(even "$H / 4"):flags=neighbor[screen];
color=c=0xFFB703:s=$(even "$W / 10")x$(even "$W / 10"):r=${R}[sun];
color=c=0xF1FAEE:s=$(even "$W / 6")x$(even "$H / 12"):r=${R}[cloud];
color=c=0xE63946:s=$(even "$W / 12")x$(even "$H / 8"):r=${R}[hero];
color=c=0x264653:s=$(even "$W / 16")x$(even "$H / 10"):r=${R}[walker];
[sky][sun]overlay=x=W*0.08:y=H*0.06[s1];
[s1][cloud]overlay=x='mod(W*0.9-t*W/20\,W+w)-w/2':y=H*0.14[s2];
[s2][ground]overlay=x=0:y=H-h[s3];
[s3][screen]overlay=x=W*0.7:y=H*0.08[s4];
[s4][walker]overlay=x='W-mod(t*W/9\,W+w)':y=H*2/3-h[s5];
[s5][hero]overlay=x='mod(t*W/5\,W+w)-w':y='H*2/3-h-abs(sin(PI*t/0.8))*H/5',format=yuv420p[v]"
}

clip_scene_cuts() {
  local R=25 PF=78 n i k graph="" ins="" small
  small="$(even "$W / 4")x$(even "$H / 4")"
  n=$(awk -v f="$(frames_of $R)" -v p=$PF 'BEGIN { print int((f + p - 1) / p) }')
  for ((i = 0; i < n; i++)); do
    k=$((i % 8))
    local p="trim=end_frame=$PF,setpts=PTS-STARTPTS,scale=$W:$H,setsar=1,format=yuv420p[p$i];"
    case $k in
      0) graph+="testsrc2=s=${W}x${H}:r=$R,noise=alls=12:allf=t:all_seed=$((2200 + i)),$p" ;;
      1) graph+="mandelbrot=s=$small:r=$R:start_scale=3:end_scale=0.02:end_pts=$PF:maxiter=1000,$p" ;;
      2) graph+="cellauto=s=${W}x${H}:r=$R:rule=110:seed=$((2200 + i)):ratio=0.5,$p" ;;
      3) graph+="smptehdbars=s=${W}x${H}:r=$R,scroll=h=0.004,$p" ;;
      4) graph+="life=s=$small:r=$R:seed=$((2200 + i)):ratio=0.15:mold=12:life_color=0x00FF66:death_color=0x101030:mold_color=0xC83232,scale=$W:$H:flags=neighbor,$p" ;;
      5) graph+="gradients=s=${W}x${H}:r=$R:n=5:seed=$((2200 + i)):speed=0.05:type=spiral,$p" ;;
      6) graph+="sierpinski=s=${W}x${H}:r=$R:seed=$((2200 + i)):type=triangle:jump=30,$p" ;;
      7) graph+="testsrc=s=${W}x${H}:r=$R,hue=H=2*t:s=1.5,$p" ;;
    esac
    ins+="[p$i]"
  done
  encode scene-cuts "$R" "${graph}${ins}concat=n=$n:v=1:a=0[v]"
}

clip_fade_gradient() {
  local R=25 F O D
  F=$(num "$S / 4"); O=$(num "$S * 0.4"); D=$(num "$S / 6")
  encode fade-gradient "$R" "
gradients=s=${W}x${H}:r=$R:n=3:c0=0x0B1D51:c1=0x725CFA:c2=0xFFB86C:seed=1:speed=0.004:type=linear,trim=duration=$(num "$O + $D")[a];
gradients=s=${W}x${H}:r=$R:n=4:c0=0x001219:c1=0x005F73:c2=0x94D2BD:c3=0xE9D8A6:seed=2:speed=0.006:type=radial,trim=duration=$(num "$S - $O + 1")[b];
[a][b]xfade=transition=fade:duration=$D:offset=$O,fade=in:st=0:d=$F,fade=out:st=$(num "$S - $F"):d=$F,format=yuv420p[v]"
}

clip_dips() {
  local R=25 T small third
  T=$(num "$S / 3 + 1")
  small="$(even "$W / 4")x$(even "$H / 4")"
  third=$(awk -v f="$(frames_of $R)" 'BEGIN { print int(f / 3) }')
  encode dips "$R" "
testsrc2=s=${W}x${H}:r=$R:d=$T,noise=alls=20:allf=t:all_seed=7707,setsar=1,format=yuv420p[a];
mandelbrot=s=$small:r=$R:start_scale=3:end_scale=0.05:end_pts=$third:maxiter=1000,trim=duration=$T,scale=$W:$H,setsar=1,format=yuv420p[b];
color=c=0x884422:s=${W}x${H}:r=$R:d=${T}[bg];
color=c=white:s=$(even "$W / 6")x$(even "$H / 4"):r=${R}[box];
[bg][box]overlay=x='mod(t*W/5\,W)':y=H/4,noise=alls=10:allf=t:all_seed=7708,setsar=1,format=yuv420p[c];
[a]trim=end_frame=${third}[a2];
[b]trim=end_frame=$third,setpts=PTS-STARTPTS[b2];
[a2][b2][c]concat=n=3:v=1:a=0,
eq=eval=frame:contrast='abs(sin(PI*t/2))':brightness='-0.5*(1-abs(sin(PI*t/2)))':saturation='abs(sin(PI*t/2))',format=yuv420p[v]"
}

clip_automaton() {
  local R=25
  # The Game of Life over the whole frame (2x2 pixels a cell), coloured by
  # moving gradients, and a rule-30 automaton scrolling in a band across it.
  encode automaton "$R" "
life=s=$(even "$W / 2")x$(even "$H / 2"):r=$R:seed=9901:ratio=0.5:rule=B3678/S34678:mold=0:life_color=0xFFFFFF:death_color=0x000000,
scale=$W:$H:flags=neighbor,format=gbrp[l];
gradients=s=${W}x${H}:r=$R:n=4:seed=9902:speed=0.08:type=circular,format=gbrp[g];
[l][g]blend=all_mode=multiply,format=yuv420p[a];
cellauto=s=$(even "$W / 2")x$(even "$H / 8"):r=$R:rule=30:seed=9903:ratio=0.5:scroll=1:full=1,scale=$W:$(even "$H / 4"):flags=neighbor,format=yuv420p[b];
[a][b]overlay=x=0:y=(H-h)/2,format=yuv420p[v]"
}

clip_black_hold() {
  local R=25 H2 E D
  H2=$(num "$S / 2"); E=$(num "$S / 2 + 1"); D=$(num "$S / 8")
  # Two halves: the first fades out from S/4 and is black from 3S/8, the
  # second is black until its S/8 (5S/8 of the clip) and fades back in.
  encode black-hold "$R" "
testsrc2=s=${W}x${H}:r=$R,noise=alls=6:allf=t:all_seed=9904,
rotate=a='0.2*sin(2*PI*t/5)':fillcolor=0x303030,setsar=1,format=yuv420p,split[x][y];
[x]trim=duration=$H2,fade=out:st=$(num "$S / 4"):d=$D[p1];
[y]trim=start=$H2:duration=$E,setpts=PTS-STARTPTS,fade=in:st=$D:d=$D[p2];
[p1][p2]concat=n=2:v=1:a=0,format=yuv420p[v]"
}

declare -A KIND=(
  [talking-head]="static talking head"
  [high-motion]="high motion"
  [film-grain]="film grain / noise"
  [animation]="animation / flat colour"
  [scene-cuts]="scene cuts"
  [fade-gradient]="slow fade / gradient"
  [dips]="fades to black"
  [automaton]="high-entropy motion"
  [black-hold]="fade to black and back"
)
declare -A STRESSES=(
  [talking-head]="little changes: VBR tends to undershoot its target; 29.97 fps (60-frame chunks of 2.002 s)"
  [high-motion]="fast global motion over fine detail everywhere: motion search, a high rate demand in every chunk; 50 fps (100-frame chunks)"
  [film-grain]="unpredictable temporal noise: every frame costs about the same and much, low PSNR at any rate"
  [animation]="flat areas and hard edges: easy to compress, encoders undershoot; ringing at edges"
  [scene-cuts]="a cut every 78 frames (3.12 s) inside chunks, between unrelated sources: rate swings from chunk to chunk"
  [fade-gradient]="smooth gradients (banding) and slow fades and a cross-fade: brightness changes defeat motion compensation"
  [dips]="a fade to black and back in every 2 s chunk over noise, a zoom and flat colour"
  [automaton]="every pixel changes unpredictably from frame to frame: no target is too high, every chunk wants more than its share"
  [black-hold]="whole chunks of pure black between detailed motion: a rung's budget cannot be spent there and must not be lost"
)
declare -A RATE=([talking-head]=30000/1001 [high-motion]=50)

entries=()
total_start=$(date +%s.%N)
for c in ${ALL_CLIPS//,/ }; do
  [[ ",$CLIPS," == *",$c,"* ]] || continue
  t0=$(date +%s.%N)
  "clip_${c//-/_}"
  t1=$(date +%s.%N)
  secs=$(num "$t1 - $t0")
  r="${RATE[$c]:-25}"
  n=$(frames_of "$r")
  bytes=$(stat -c %s "$OUT/$c.mp4")
  md5=$(md5sum "$OUT/$c.mp4" | cut -d' ' -f1)
  dur=$(awk -v n="$n" -v r="$r" 'BEGIN { split(r, a, "/"); printf "%.3f", n * (a[2] ? a[2] : 1) / a[1] }')
  echo "make-corpus.sh: $OUT/$c.mp4: ${W}x${H} $r fps, $n frames ($dur s), $bytes bytes, made in $secs s" >&2
  entries+=("$(printf '    {"name": "%s", "file": "%s.mp4", "kind": "%s", "width": %d, "height": %d, "frame_rate": "%s", "frames": %d, "duration_s": %s, "bytes": %d, "md5": "%s", "make_seconds": %s, "stresses": "%s"}' \
    "$c" "$c" "${KIND[$c]}" "$W" "$H" "$r" "$n" "$dur" "$bytes" "$md5" "$secs" "${STRESSES[$c]}")")
done
total=$(num "$(date +%s.%N) - $total_start")

# corpus.json: the clips made by this call (a later call with --clips rewrites
# it with only those).
{
  echo "{"
  printf '  "made_by": "scripts/make-corpus.sh",\n'
  printf '  "arguments": {"seconds": %s, "size": "%s", "crf": %s},\n' "$S" "$SIZE" "$CRF"
  printf '  "ffmpeg": "%s",\n' "$("$FFMPEG" -hide_banner -version | head -n1 | sed 's/"/\\"/g')"
  printf '  "make_seconds": %s,\n' "$total"
  echo '  "clips": ['
  for ((i = 0; i < ${#entries[@]}; i++)); do
    printf '%s%s\n' "${entries[$i]}" "$([[ $i -lt $((${#entries[@]} - 1)) ]] && echo ,)"
  done
  echo "  ]"
  echo "}"
} > "$OUT/corpus.json.part"
mv -f "$OUT/corpus.json.part" "$OUT/corpus.json"
echo "make-corpus.sh: wrote ${#entries[@]} clips and $OUT/corpus.json in $total s" >&2
