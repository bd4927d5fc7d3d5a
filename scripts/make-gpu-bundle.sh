#!/usr/bin/env bash
# Build gpu-bundle/: ladder, ffmpeg and ffprobe with a trimmed FFmpeg 7.1 and
# every shared library they need beyond a base Linux system, to carry to a
# machine that has no FFmpeg and no package registry (the lent NVIDIA GPU
# machine: Ubuntu 24.04, driver libraries under /usr/local/nvidia). See
# docs/gpu-verification.md.
#
# Usage: scripts/make-gpu-bundle.sh [--skip-deps] [--rebuild-ffmpeg] [--no-check]
#   --skip-deps       do not check/install the Debian build dependencies
#   --rebuild-ffmpeg  rebuild the trimmed FFmpeg even if its configure line
#                     did not change
#   --no-check        skip the self-check at the end
# Environment:
#   JOBS                    parallel build jobs (default 2: the build machine is shared)
#   LADDER_DEBIAN_MIRROR    Debian mirror (default: http://deb.debian.org/debian)
#   LADDER_DEBIAN_SECURITY  security mirror (default: http://deb.debian.org/debian-security)
#
# Must run on Debian 12 (bookworm): the bundle has to run on glibc 2.39
# (Ubuntu 24.04), so it is built against glibc 2.36 with Debian 12's
# libraries; the FFmpeg source (7.1.x, with av1_nvenc) and nv-codec-headers
# (12.1.x) come from Debian 13's source archive, as in the Docker image.
# The stand-in NVENC (tests/standin, test equipment) goes in
# gpu-bundle/standin-nvenc/, apart, and the whole stand-in driver (CUDA, NVML,
# NVENC: scripts/bench-gpu without --real-cuda) in gpu-bundle/standin-driver/.
# Everything it writes is ignored by git:
#   build/ffmpeg-src/         private apt config, downloaded source packages,
#                             unpacked source trees (reused when present)
#   build/ffmpeg-trim/build   FFmpeg build tree; build/ffmpeg-trim/prefix its
#                             install prefix (reused while the configure line
#                             is unchanged)
#   build/gpu-bundle/         ladder's CMake build against the trimmed FFmpeg
#   gpu-bundle/               the result: bin/, lib/, env.sh, MANIFEST.txt
# A rerun after ladder's code changed only rebuilds ladder and reassembles
# gpu-bundle/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SKIP_DEPS=0
REBUILD_FFMPEG=0
CHECK=1
for arg in "$@"; do
  case "$arg" in
    --skip-deps) SKIP_DEPS=1 ;;
    --rebuild-ffmpeg) REBUILD_FFMPEG=1 ;;
    --no-check) CHECK=0 ;;
    -h|--help) sed -n '2,32p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "make-gpu-bundle.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

JOBS="${JOBS:-2}"
SRC_CACHE="$ROOT/build/ffmpeg-src"
FF_DIR="$ROOT/build/ffmpeg-trim"
FF_BUILD="$FF_DIR/build"
FF_PREFIX="$FF_DIR/prefix"
LADDER_BUILD="$ROOT/build/gpu-bundle"
BUNDLE="$ROOT/gpu-bundle"

log() { echo "make-gpu-bundle.sh: $*"; }
die() { echo "make-gpu-bundle.sh: error: $*" >&2; exit 1; }
T_START=$SECONDS

# --------------------------------------------------------------------------
# 0. Debian 12 and the build dependencies
# --------------------------------------------------------------------------
os_id="$(. /etc/os-release 2>/dev/null && echo "${ID:-}")"
os_codename="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")"
if [[ "$os_id" != debian || "$os_codename" != bookworm ]]; then
  die "run this on Debian 12 (bookworm), not '$os_id $os_codename': the bundle must be built against glibc 2.36 to run on Ubuntu 24.04, and its libraries come from Debian 12'"
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]] && command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi

PACKAGES=(
  g++ cmake ninja-build pkg-config dpkg-dev xz-utils binutils make
  # FFmpeg's x86 assembly; clang compiles the CUDA filters to PTX (cuda-llvm)
  nasm clang
  # what the trimmed FFmpeg links or includes
  libffmpeg-nvenc-dev libsvtav1enc-dev libaom-dev libdav1d-dev zlib1g-dev
  # ladder's own dependencies (scripts/install-deps.sh)
  libcli11-dev nlohmann-json3-dev libfmt-dev
  # the DASH manifest (written and validated as XML)
  libpugixml-dev
)
if [[ $SKIP_DEPS -eq 0 ]]; then
  missing=()
  for pkg in "${PACKAGES[@]}"; do
    [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" == "install ok installed" ]] || missing+=("$pkg")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    if [[ "$(id -u)" -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
      die "missing packages (${missing[*]}) and not root; install sudo or run as root"
    fi
    log "installing ${missing[*]}"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${PACKAGES[@]}"
  else
    log "all ${#PACKAGES[@]} build packages are installed"
  fi
fi

# --------------------------------------------------------------------------
# 1. FFmpeg 7.1 and nv-codec-headers 12.1 from Debian 13's source archive
#    (cached): FFmpeg 7.1 with headers 12.1 has av1_nvenc, 5.1 has not
# --------------------------------------------------------------------------
MIRROR="${LADDER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY="${LADDER_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
find_src() { [[ -d "$SRC_CACHE" ]] || return 0; find "$SRC_CACHE" -maxdepth 1 -type d -name "$1" | sort -V | tail -n 1; }
FF_SRC="$(find_src 'ffmpeg-7.1.*')"
NVH_SRC="$(find_src 'nv-codec-headers-12.1.*')"
if [[ -n "$FF_SRC" && -x "$FF_SRC/configure" && -n "$NVH_SRC" && -f "$NVH_SRC/Makefile" ]]; then
  log "reusing the sources in ${FF_SRC#"$ROOT"/} and ${NVH_SRC#"$ROOT"/}"
else
  APT_DIR="$SRC_CACHE/apt"
  DL_DIR="$SRC_CACHE/download"
  rm -rf "$APT_DIR" "$DL_DIR"
  mkdir -p "$APT_DIR/sources.list.d" "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" "$DL_DIR"
  # A private apt configuration with Debian 13's deb-src entries (Debian 12's
  # archive keyring has trixie's keys): the system's apt setup is not touched.
  printf 'deb-src [signed-by=%s] %s trixie main\ndeb-src [signed-by=%s] %s trixie-security main\n' \
    "$KEYRING" "$MIRROR" "$KEYRING" "$SECURITY" > "$APT_DIR/sources.list"
  APT_OPTS=(
    -o "Dir::Etc::SourceList=$APT_DIR/sources.list"
    -o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d"
    -o "Dir::State::Lists=$APT_DIR/lists"
    -o "Dir::Cache=$APT_DIR/cache"
    -o "APT::Sandbox::User=$(id -un)"
  )
  log "fetching Debian 13's source package index (private apt config in ${APT_DIR#"$ROOT"/})"
  apt-get "${APT_OPTS[@]}" -q update
  (cd "$DL_DIR" && apt-get "${APT_OPTS[@]}" -q source --download-only ffmpeg)
  # Headers only, and Debian changes nothing in them: the upstream tarball,
  # checked against the signed .dsc, is enough (some mirrors lack the
  # .debian.tar.xz, so apt-get's own exit code is not)
  (cd "$DL_DIR" && apt-get "${APT_OPTS[@]}" -q source --download-only nv-codec-headers) || true
  # apt checked the files against the signed index; dpkg-source unpacks the
  # orig tarball and applies Debian's patches
  unpack() {  # unpack PACKAGE EXPECTED_UPSTREAM_GLOB: prints the source folder
    local dsc version upstream
    dsc="$(find "$DL_DIR" -maxdepth 1 -name "$1_*.dsc" | sort -V | tail -n 1)"
    [[ -n "$dsc" ]] || die "apt-get source gave no $1 .dsc"
    version="$(sed -n 's/^Version: //p' "$dsc")"
    upstream="${version#*:}"; upstream="${upstream%-*}"
    # shellcheck disable=SC2053
    [[ "$upstream" == $2 ]] || die "Debian 13's $1 source is $version, expected $2"
    rm -rf "$SRC_CACHE/$1-$upstream" "$SRC_CACHE/tmp"
    dpkg-source --no-check -x "$dsc" "$SRC_CACHE/tmp" >/dev/null
    mv "$SRC_CACHE/tmp" "$SRC_CACHE/$1-$upstream"
    echo "$version" > "$SRC_CACHE/$1-$upstream/.debian-version"
    echo "$SRC_CACHE/$1-$upstream"
  }
  unpack_orig() {  # unpack_orig PACKAGE EXPECTED_UPSTREAM_GLOB: prints the source folder
    local dsc version upstream orig sum
    dsc="$(find "$DL_DIR" -maxdepth 1 -name "$1_*.dsc" | sort -V | tail -n 1)"
    [[ -n "$dsc" ]] || die "apt-get source gave no $1 .dsc"
    version="$(sed -n 's/^Version: //p' "$dsc")"
    upstream="${version#*:}"; upstream="${upstream%-*}"
    # shellcheck disable=SC2053
    [[ "$upstream" == $2 ]] || die "Debian 13's $1 source is $version, expected $2"
    orig="$DL_DIR/$1_$upstream.orig.tar.xz"
    [[ -f "$orig" ]] || die "no $orig"
    sum="$(awk '/^Checksums-Sha256:/ { on = 1; next } on && /^ / { print } on && !/^ / { on = 0 }' "$dsc" |
           awk -v f="$(basename "$orig")" '$3 == f { print $1 }')"
    [[ -n "$sum" && "$(sha256sum "$orig" | cut -d' ' -f1)" == "$sum" ]] || die "$orig does not match its .dsc"
    rm -rf "$SRC_CACHE/$1-$upstream" "$SRC_CACHE/tmp"
    mkdir -p "$SRC_CACHE/tmp"
    tar -xJf "$orig" -C "$SRC_CACHE/tmp" --strip-components=1
    mv "$SRC_CACHE/tmp" "$SRC_CACHE/$1-$upstream"
    echo "$upstream (upstream tarball of Debian 13's $version)" > "$SRC_CACHE/$1-$upstream/.debian-version"
    echo "$SRC_CACHE/$1-$upstream"
  }
  FF_SRC="$(unpack ffmpeg '7.1.*')"
  NVH_SRC="$(unpack_orig nv-codec-headers '12.1.*')"
  log "unpacked FFmpeg $(cat "$FF_SRC/.debian-version") and nv-codec-headers $(cat "$NVH_SRC/.debian-version")"
fi
# The headers FFmpeg and ladder build against (headers and a .pc file only;
# the driver libraries are loaded at run time)
NVH_PREFIX="$FF_DIR/nv-codec-headers"
rm -rf "$NVH_PREFIX"
make -C "$NVH_SRC" PREFIX="$NVH_PREFIX" install >/dev/null
export PKG_CONFIG_PATH="$NVH_PREFIX/lib/pkgconfig"
[[ "$(pkg-config --modversion ffnvcodec)" == 12.1.* ]] || die "ffnvcodec from $NVH_PREFIX is not 12.1"

# --------------------------------------------------------------------------
# 2. Trimmed shared FFmpeg (reused while the configure line is unchanged)
# --------------------------------------------------------------------------
join() { local IFS=,; echo "$*"; }
DECODERS=(
  # video; libdav1d first for AV1 (ladder's default), the native av1 decoder
  # is what av1_nvdec plugs into; the *_cuvid ones are NVDEC's own decoders
  h264 hevc av1 libdav1d vp9 vp8 mpeg2video mpeg4 mjpeg png rawvideo wrapped_avframe
  h264_cuvid hevc_cuvid av1_cuvid vp9_cuvid
  # image sequences (the image2 demuxer): PNG and JPEG above, and these
  tiff dpx exr
  # audio
  aac aac_latm mp3 mp3float opus vorbis flac ac3 eac3 alac
  pcm_s16le pcm_s16be pcm_s24le pcm_s32le pcm_f32le
  # text subtitles ladder turns into WebVTT and mov_text
  subrip srt ass ssa webvtt movtext text
)
ENCODERS=(
  libsvtav1 libaom_av1 aac rawvideo wrapped_avframe pcm_s16le
  # subtitle renditions: WebVTT (HLS, DASH) and mov_text (MP4)
  webvtt movtext
  # NVENC (not on H100/H200, which have no NVENC engine: there the stand-in
  # driver's NVENC runs it, see standin-nvenc/ below)
  av1_nvenc hevc_nvenc h264_nvenc
)
HWACCELS=(h264_nvdec hevc_nvdec av1_nvdec vp9_nvdec)
DEMUXERS=(mov matroska mpegts hls concat wav aac mp3 h264 hevc obu ivf rawvideo image2 flac srt ass webvtt)
MUXERS=(mp4 mov matroska webm mpegts null framemd5 framecrc md5 rawvideo ivf obu wav adts webvtt srt)
PARSERS=(h264 hevc av1 aac opus mpegaudio vp9 vp8 mpegvideo mpeg4video ac3 flac vorbis mjpeg png)
PROTOCOLS=(file pipe)
FILTERS=(
  # (buffer, buffersink, abuffer, abuffersink are always built)
  # ladder: fps, format, aresample, aformat; ffmpeg inserts null/anull,
  # trim/atrim, scale, format, apad and the autorotate ones (transpose, hflip, vflip)
  fps format scale aformat aresample anull null trim atrim apad transpose hflip vflip
  split asplit setpts asetpts settb asettb pad crop setsar setdar setparams
  copy concat select aselect showinfo ashowinfo volume pan
  psnr ssim
  # CUDA
  hwdownload hwupload hwupload_cuda scale_cuda
  # sources for -f lavfi
  testsrc testsrc2 nullsrc color sine anullsrc
)
FF_CONFIGURE=(
  "$FF_SRC/configure"
  "--prefix=$FF_PREFIX"
  --enable-shared --disable-static
  --disable-doc --disable-debug
  --disable-autodetect --disable-everything
  --disable-ffplay --enable-ffmpeg --enable-ffprobe
  --enable-avdevice --enable-avfilter --enable-swscale --enable-swresample
  --disable-postproc
  --enable-pthreads --enable-zlib
  --enable-ffnvcodec --enable-cuda --enable-cuvid --enable-nvdec --enable-nvenc --enable-cuda-llvm
  --enable-libsvtav1 --enable-libaom --enable-libdav1d
  "--enable-decoder=$(join "${DECODERS[@]}")"
  "--enable-encoder=$(join "${ENCODERS[@]}")"
  "--enable-hwaccel=$(join "${HWACCELS[@]}")"
  "--enable-demuxer=$(join "${DEMUXERS[@]}")"
  "--enable-muxer=$(join "${MUXERS[@]}")"
  "--enable-parser=$(join "${PARSERS[@]}")"
  --enable-bsfs
  "--enable-protocol=$(join "${PROTOCOLS[@]}")"
  "--enable-filter=$(join "${FILTERS[@]}")"
  --enable-indev=lavfi
  # DT_RPATH (not RUNPATH, which only covers a binary's direct needs): the
  # programs find the libraries in ../lib, the libraries each other in
  # their own folder, before LD_LIBRARY_PATH and the system
  # (configure evals the value once, make once for programs and twice for
  # libraries, then the shell: \\\$\$ -> \$$ -> \$ -> $, \\\$\$\$\$ -> \$$$$ -> \$$ -> \$ -> $)
  '--extra-ldexeflags=-Wl,--disable-new-dtags,-rpath,\\\$\$ORIGIN/../lib'
  '--extra-ldsoflags=-Wl,--disable-new-dtags,-rpath,\\\$\$\$\$ORIGIN'
)
CONF_LINE="${FF_CONFIGURE[*]}"
STAMP="$FF_DIR/installed-with.txt"
if [[ $REBUILD_FFMPEG -eq 0 && -f "$STAMP" && "$(cat "$STAMP")" == "$CONF_LINE" && -f "$FF_PREFIX/lib/pkgconfig/libavcodec.pc" ]]; then
  log "reusing the trimmed FFmpeg in ${FF_PREFIX#"$ROOT"/} (configure line unchanged)"
else
  log "building the trimmed FFmpeg (make -j$JOBS)"
  echo "$CONF_LINE"
  # ladder's CMake cache holds the old FFmpeg's and headers' pkg-config results
  rm -rf "$FF_BUILD" "$FF_PREFIX" "$STAMP" "$LADDER_BUILD"
  mkdir -p "$FF_BUILD"
  t0=$SECONDS
  (cd "$FF_BUILD" && "${FF_CONFIGURE[@]}" > configure.out) || { tail -n 30 "$FF_BUILD/ffbuild/config.log" >&2; die "FFmpeg configure failed"; }
  # fail now, not after the build, if configure quietly dropped something
  for want in CONFIG_SCALE_CUDA_FILTER CONFIG_HWUPLOAD_CUDA_FILTER CONFIG_CUDA_LLVM CONFIG_CUDA CONFIG_NVDEC \
              CONFIG_H264_NVDEC_HWACCEL CONFIG_HEVC_NVDEC_HWACCEL CONFIG_AV1_NVDEC_HWACCEL CONFIG_AV1_DECODER \
              CONFIG_LIBSVTAV1_ENCODER CONFIG_LIBAOM_AV1_ENCODER CONFIG_LIBDAV1D_DECODER CONFIG_AAC_ENCODER \
              CONFIG_EXTRACT_EXTRADATA_BSF CONFIG_MP4_MUXER CONFIG_MOV_DEMUXER CONFIG_LAVFI_INDEV \
              CONFIG_FPS_FILTER CONFIG_FORMAT_FILTER CONFIG_ARESAMPLE_FILTER CONFIG_AFORMAT_FILTER \
              CONFIG_ZLIB HAVE_PTHREADS HAVE_X86ASM CONFIG_AV1_NVENC_ENCODER; do
    grep -qh "^#define $want 1" "$FF_BUILD/config.h" "$FF_BUILD/config_components.h" || die "FFmpeg configure did not enable $want (see $FF_BUILD/ffbuild/config.log)"
  done
  make -C "$FF_BUILD" -j"$JOBS" >"$FF_BUILD/make.out" 2>&1 || { tail -n 40 "$FF_BUILD/make.out" >&2; die "FFmpeg build failed (log: $FF_BUILD/make.out)"; }
  make -C "$FF_BUILD" install >"$FF_BUILD/install.out" 2>&1 || { tail -n 40 "$FF_BUILD/install.out" >&2; die "FFmpeg install failed"; }
  echo "$CONF_LINE" > "$STAMP"
  log "trimmed FFmpeg built in $((SECONDS - t0)) s"
fi

# --------------------------------------------------------------------------
# 3. ladder against the trimmed FFmpeg
# --------------------------------------------------------------------------
export PKG_CONFIG_PATH="$FF_PREFIX/lib/pkgconfig:$NVH_PREFIX/lib/pkgconfig"
for m in libavformat libavcodec libavfilter libswscale libswresample libavutil; do
  [[ "$(pkg-config --variable=prefix "$m")" == "$FF_PREFIX" ]] || die "pkg-config finds $m outside $FF_PREFIX"
done
cmake_args=(
  -S "$ROOT" -B "$LADDER_BUILD"
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
  -DLADDER_BUILD_TESTS=OFF
  # the stand-in NVENC (test equipment) goes in standin-nvenc/, apart
  -DLADDER_BUILD_STANDIN=ON
  # the binary is used from gpu-bundle/bin, the stand-in from
  # gpu-bundle/standin-nvenc: libraries in ../lib, DT_RPATH
  -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON
  '-DCMAKE_INSTALL_RPATH=$ORIGIN/../lib'
  -DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags
  -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--disable-new-dtags
)
if [[ ! -f "$LADDER_BUILD/CMakeCache.txt" ]]; then cmake_args+=(-G Ninja); fi
log "building ladder in ${LADDER_BUILD#"$ROOT"/}"
t0=$SECONDS
cmake "${cmake_args[@]}" >/dev/null
cmake --build "$LADDER_BUILD" --parallel "$JOBS"
log "ladder built in $((SECONDS - t0)) s"
# the FFmpeg libraries CMake resolved must be the trimmed ones, not the system's
ff_libs="$(sed -n 's/^pkgcfg_lib_FFMPEG_[a-z]*:FILEPATH=//p' "$LADDER_BUILD/CMakeCache.txt")"
[[ "$(wc -l <<< "$ff_libs")" -eq 6 ]] || die "expected 6 pkgcfg_lib_FFMPEG_* entries in $LADDER_BUILD/CMakeCache.txt"
while read -r l; do
  [[ "$l" == "$FF_PREFIX"/lib/* ]] || die "ladder links $l, not the trimmed FFmpeg (remove $LADDER_BUILD and rerun)"
done <<< "$ff_libs"

# --------------------------------------------------------------------------
# 4. Assemble gpu-bundle/
# --------------------------------------------------------------------------
# Libraries every Linux system with glibc has (Ubuntu 24.04: libc6,
# libstdc++6, libgcc-s1, zlib1g are all in its base); everything else the
# binaries need is bundled. Ubuntu 24.04's libstdc++ (GCC 14) is newer than
# Debian 12's (GCC 12), so it serves binaries built here.
BASE_LIBS=(
  linux-vdso.so.1 ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1
  libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2 libutil.so.1
  libstdc++.so.6 libgcc_s.so.1 libz.so.1
)
is_base() { local b; for b in "${BASE_LIBS[@]}"; do [[ "$1" == "$b" ]] && return 0; done; return 1; }
soname() { objdump -p "$1" | awk '$1 == "SONAME" { print $2 }'; }

log "assembling ${BUNDLE#"$ROOT"/}"
STAGE="$ROOT/gpu-bundle.tmp"
rm -rf "$STAGE"
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/standin-nvenc" "$STAGE/standin-driver"
MANIFEST_LIBS=()
install -m 755 "$LADDER_BUILD/ladder" "$STAGE/bin/ladder"
# Test equipment, in a folder of its own that nothing puts on a library path
# unless asked (docs/gpu-verification.md): the real driver's CUDA and NVML
# stay in use, only NVENC is the stand-in's.
STANDIN_BUILD="$LADDER_BUILD/tests/standin-driver"
[[ -f "$STANDIN_BUILD/libnvidia-encode.so.1" ]] || die "the stand-in NVENC was not built (needs libaom-dev and nv-codec-headers 12.1)"
install -m 644 "$STANDIN_BUILD/libnvidia-encode.so.1" "$STAGE/standin-nvenc/libnvidia-encode.so.1"
for l in libcuda.so.1 libnvidia-ml.so.1 libnvidia-encode.so.1 libnvcuvid.so.1; do
  install -m 644 "$STANDIN_BUILD/$l" "$STAGE/standin-driver/$l"
done
install -m 755 "$FF_PREFIX/bin/ffmpeg" "$STAGE/bin/ffmpeg"
install -m 755 "$FF_PREFIX/bin/ffprobe" "$STAGE/bin/ffprobe"
for f in "$FF_PREFIX"/lib/lib*.so.*; do
  [[ -L "$f" ]] && continue
  name="$(soname "$f")"
  install -m 644 "$f" "$STAGE/lib/$name"
  MANIFEST_LIBS+=("$name  trimmed FFmpeg $(basename "$FF_SRC")")
done
# the rest of the closure, until nothing new appears
while :; do
  added=0
  for f in "$STAGE"/bin/* "$STAGE"/lib/* "$STAGE"/standin-nvenc/* "$STAGE"/standin-driver/*; do
    while read -r name arrow path _; do
      [[ "$arrow" == "=>" ]] || continue
      is_base "$name" && continue
      [[ -e "$STAGE/lib/$name" ]] && continue
      [[ "$path" == not ]] && die "$(basename "$f") needs $name, which is not found"
      real="$(readlink -f "$path")"
      install -m 644 "$real" "$STAGE/lib/$name"
      pkg="$(dpkg -S "$real" 2>/dev/null | head -n 1 | cut -d: -f1 || true)"
      [[ -z "$pkg" ]] && pkg="$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1 || true)"
      ver="$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)"
      MANIFEST_LIBS+=("$name  Debian 12 ${pkg:-?} ${ver}")
      added=1
    done < <(LD_LIBRARY_PATH="$STAGE/lib" ldd "$f")
  done
  [[ $added -eq 0 ]] && break
done
strip --strip-unneeded "$STAGE"/bin/* "$STAGE"/lib/* "$STAGE"/standin-nvenc/* "$STAGE"/standin-driver/*

cat > "$STAGE/env.sh" <<'EOF'
# Source this file: . gpu-bundle/env.sh
# The binaries find the bundled libraries by themselves (RPATH $ORIGIN/../lib);
# LD_LIBRARY_PATH adds the NVIDIA driver libraries (libcuda, libnvcuvid,
# libnvidia-encode, libnvidia-ml), which FFmpeg and ladder load at run time.
GPU_BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export GPU_BUNDLE
export PATH="$GPU_BUNDLE/bin${PATH:+:$PATH}"
export LD_LIBRARY_PATH="$GPU_BUNDLE/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
EOF

{
  echo "gpu-bundle built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "ladder commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "FFmpeg: $(cat "$FF_SRC/.debian-version" 2>/dev/null || basename "$FF_SRC") (Debian 13 source), nv-codec-headers $(cat "$NVH_SRC/.debian-version" 2>/dev/null || basename "$NVH_SRC"), configured with:"
  echo "  $CONF_LINE"
  echo
  echo "lib/:"
  printf '  %s\n' "${MANIFEST_LIBS[@]}"
  echo
  echo "expected from the system (not bundled): ${BASE_LIBS[*]}"
  echo "loaded at run time from the NVIDIA driver: libcuda.so.1 libnvcuvid.so.1 libnvidia-encode.so.1 libnvidia-ml.so.1"
  echo "standin-nvenc/libnvidia-encode.so.1: the stand-in NVENC (test equipment, tests/standin/README.md), used only"
  echo "  where LD_LIBRARY_PATH names standin-nvenc/ before the driver's folder"
  echo "standin-driver/: the whole stand-in driver (CUDA, NVML, NVENC, no NVDEC; test equipment), for scripts/bench-gpu"
  echo "  without --real-cuda: stand-in GPUs on the machine's CPUs"
} > "$STAGE/MANIFEST.txt"

rm -rf "$BUNDLE"
mv "$STAGE" "$BUNDLE"

echo
log "bundle contents:"
(cd "$BUNDLE" && find . -type f -printf '%s\t%p\n' | sort -k2 | awk -F'\t' '{ printf "  %8.1f KiB  %s\n", $1 / 1024, $2 }')
bytes="$(du -sb "$BUNDLE" | cut -f1)"
log "bundle size: $bytes bytes ($(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }')) in ${BUNDLE#"$ROOT"/}"
(( bytes < 64 * 1024 * 1024 )) || die "the bundle is over the 64 MiB carry limit"

echo
log "ldd closure of bin/* and lib/* (no LD_LIBRARY_PATH; resolved path, then who needs it):"
declare -A dep_path dep_users
for f in "$BUNDLE"/bin/* "$BUNDLE"/lib/* "$BUNDLE"/standin-nvenc/* "$BUNDLE"/standin-driver/*; do
  while read -r name arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    [[ "$path" == not ]] && die "${f#"$BUNDLE"/} needs $name, which is not found"
    path="$(readlink -f "$path")"
    # every library that is not a base library must come from the bundle
    if ! is_base "$name" && [[ "$path" != "$BUNDLE/lib/$name" ]]; then
      die "${f#"$BUNDLE"/} resolves $name to $path, not to the bundle"
    fi
    dep_path[$name]="$path"
    dep_users[$name]+=" $(basename "$f")"
  done < <(env -u LD_LIBRARY_PATH ldd "$f")
done
for name in $(printf '%s\n' "${!dep_path[@]}" | sort); do
  where="${dep_path[$name]}"
  [[ "$where" == "$BUNDLE"/* ]] && where="gpu-bundle/${where#"$BUNDLE"/}" || where="$where (system)"
  printf '  %-20s %-40s <-%s\n' "$name" "$where" "${dep_users[$name]}"
done

# --------------------------------------------------------------------------
# 5. Self-check
# --------------------------------------------------------------------------
if [[ $CHECK -eq 0 ]]; then
  log "done in $((SECONDS - T_START)) s (self-check skipped)"
  exit 0
fi
echo
CHECK_DIR="$(mktemp -d /tmp/gpu-bundle-check.XXXXXX)"
trap 'rm -rf "$CHECK_DIR"' EXIT
cp "$ROOT/samples/sample.mp4" "$CHECK_DIR/sample.mp4"
# The checks run in a private mount namespace in which the system library
# folder holds only the base libraries (a stand-in for a machine without
# FFmpeg, SVT-AV1, libaom, dav1d or fmt). Only the bundle's programs
# and shell builtins run there; the output is read afterwards.
MINI="$CHECK_DIR/minimal-libs"
mkdir -p "$MINI"
for b in "${BASE_LIBS[@]}"; do
  [[ -e "/usr/lib/x86_64-linux-gnu/$b" ]] && cp -L "/usr/lib/x86_64-linux-gnu/$b" "$MINI/$b"
done
cat > "$CHECK_DIR/checks.sh" <<'EOF'
set -u
B="$1"; D="$2"
export LD_LIBRARY_PATH="$B/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib"
"$B/bin/ladder" --version > "$D/version.txt" 2>&1; echo $? > "$D/version.rc"
"$B/bin/ffmpeg" -hide_banner -filters > "$D/filters.txt" 2>&1; echo $? > "$D/filters.rc"
"$B/bin/ffmpeg" -hide_banner -hwaccels > "$D/hwaccels.txt" 2>&1; echo $? > "$D/hwaccels.rc"
"$B/bin/ffmpeg" -hide_banner -encoders > "$D/encoders.txt" 2>&1; echo $? > "$D/encoders.rc"
"$B/bin/ffmpeg" -hide_banner -loglevel error -f lavfi -i testsrc2=size=320x240:rate=25:duration=1 \
  -f lavfi -i sine=duration=1 -c:v libaom-av1 -cpu-used 6 -b:v 200k -c:a aac -shortest -y "$D/lavfi.mp4" \
  > "$D/lavfi.txt" 2>&1; echo $? > "$D/lavfi.rc"
"$B/bin/ffprobe" -hide_banner -v error -show_entries stream=codec_name -of csv=p=0 "$D/lavfi.mp4" \
  > "$D/ffprobe.txt" 2>&1; echo $? > "$D/ffprobe.rc"
"$B/bin/ladder" encode "$D/sample.mp4" -o "$D/out" --rung 360p=640x360@600 --overwrite --preset 12 --progress plain \
  > "$D/encode.txt" 2>&1; echo $? > "$D/encode.rc"
"$B/bin/ladder" validate "$D/out" > "$D/validate.txt" 2>&1; echo $? > "$D/validate.rc"
# av1_nvenc and ladder's NVENC path against the stand-in driver (two GPUs):
# the bundle's NVENC stand-in, the build's CUDA and NVML stand-ins
SD="$3"
export LADDER_STANDIN_GPUS=2 LADDER_STANDIN_STATE_DIR="$D/standin-state" LADDER_STANDIN_LOG="$D/standin.log"
LD_LIBRARY_PATH="$B/standin-nvenc:$SD:$B/lib" "$B/bin/ffmpeg" -hide_banner -loglevel error \
  -f lavfi -i testsrc2=size=320x240:rate=25:duration=1 -c:v av1_nvenc -b:v 300k -y "$D/nvenc.mp4" \
  > "$D/nvenc.txt" 2>&1; echo $? > "$D/nvenc.rc"
"$B/bin/ffprobe" -hide_banner -v error -count_frames -show_entries stream=codec_name,nb_read_frames -of csv=p=0 \
  "$D/nvenc.mp4" >> "$D/nvenc.txt" 2>&1
LD_LIBRARY_PATH="$B/standin-nvenc:$SD:$B/lib" "$B/bin/ladder" encode "$D/sample.mp4" -o "$D/out-nvenc" \
  --policy all-gpus --rung 360p=640x360@600 --progress none > "$D/encode-nvenc.txt" 2>&1; echo $? > "$D/encode-nvenc.rc"
"$B/bin/ladder" validate "$D/out-nvenc" >> "$D/encode-nvenc.txt" 2>&1 || echo 1 > "$D/encode-nvenc.rc"
grep -c '^open' "$D/standin.log" >> "$D/encode-nvenc.txt" 2>&1
/lib64/ld-linux-x86-64.so.2 --list "$B/bin/ladder" > "$D/ladder-ldd.txt" 2>&1
printf '%s\n' /usr/lib/x86_64-linux-gnu/* > "$D/visible-libs.txt"
EOF
if unshare --mount --propagation private true 2>/dev/null; then
  log "self-check in a mount namespace whose /usr/lib/x86_64-linux-gnu holds only: ${BASE_LIBS[*]}"
  unshare --mount --propagation private bash -c \
    'mount --bind "$1" /usr/lib/x86_64-linux-gnu && source "$2" "$3" "$4" "$5"' \
    _ "$MINI" "$CHECK_DIR/checks.sh" "$BUNDLE" "$CHECK_DIR" "$LADDER_BUILD/tests/standin-driver"
else
  log "self-check with the system libraries visible (unshare is not allowed here); the ldd check above is what shows the bundle is self-contained"
  bash "$CHECK_DIR/checks.sh" "$BUNDLE" "$CHECK_DIR" "$LADDER_BUILD/tests/standin-driver"
fi
fail=0
show() {  # show NAME TITLE [grep pattern]: print the output and judge it
  local rc; rc="$(cat "$CHECK_DIR/$1.rc" 2>/dev/null || echo '?')"
  echo "--- $2 (exit $rc)"
  if [[ -n "${3:-}" ]]; then grep -E "$3" "$CHECK_DIR/$1.txt" || { echo "    MISSING: $3"; fail=1; }
  else cat "$CHECK_DIR/$1.txt"; fi
  [[ "$rc" == 0 ]] || fail=1
}
show version "ladder --version"
show filters "ffmpeg -filters | grep scale_cuda" 'scale_cuda'
show hwaccels "ffmpeg -hwaccels" '.'
grep -qx cuda "$CHECK_DIR/hwaccels.txt" || { echo "    MISSING: cuda"; fail=1; }
show encoders "ffmpeg -encoders (AV1, AAC, WebVTT, mov_text)" 'libsvtav1|libaom-av1| aac |webvtt|mov_text'
# configure takes an unknown component name without a word: each one ladder
# needs must be there.
for enc in ' libsvtav1 ' ' libaom-av1 ' ' aac ' ' webvtt ' ' mov_text '; do
  grep -q -- "$enc" "$CHECK_DIR/encoders.txt" || { echo "    MISSING encoder:$enc"; fail=1; }
done
show lavfi "ffmpeg -f lavfi testsrc2+sine -> libaom-av1 + aac"
show ffprobe "ffprobe of that file" '.'
show encode "ladder encode samples/sample.mp4 --rung 360p=640x360@600 --preset 12"
show validate "ladder validate"
show nvenc "ffmpeg -f lavfi testsrc2 -> av1_nvenc on the stand-in driver" 'av1,25'
show encode-nvenc "ladder encode --policy all-gpus on two stand-in GPUs, validate" '0 problems'
grep -q 'encoder sessions\|gpu0:nvenc\|av1_nvenc' "$CHECK_DIR/out-nvenc/report.json" || { echo "    MISSING: av1_nvenc sessions in report.json"; fail=1; }
echo "--- /usr/lib/x86_64-linux-gnu inside the check environment: $(wc -l < "$CHECK_DIR/visible-libs.txt") entries"
echo "--- ldd of bin/ladder inside the check environment"
cat "$CHECK_DIR/ladder-ldd.txt"
if grep -q 'not found' "$CHECK_DIR/ladder-ldd.txt"; then fail=1; fi
# The CUDA filters are PTX that the driver compiles (JIT) for the GPU on
# first use; where a CUDA toolkit is installed, its ptxas shows that a CUDA
# 13 toolchain accepts that PTX for Hopper (sm_90).
PTX="$FF_BUILD/libavfilter/vf_scale_cuda.ptx"
PTXAS="$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null || true)"
if [[ -n "$PTXAS" && -f "$PTX" ]]; then
  echo "--- $PTXAS -arch=sm_90 on scale_cuda's PTX ($(grep -m1 '^.version' "$PTX"), $(grep -m1 '^.target' "$PTX"))"
  if "$PTXAS" -arch=sm_90 "$PTX" -o "$CHECK_DIR/scale_cuda.cubin"; then
    echo "ok ($("$PTXAS" --version | grep -o 'release [0-9.]*'))"
  else
    echo "    ptxas rejected it"; fail=1
  fi
fi
if [[ $fail -ne 0 ]]; then die "self-check failed"; fi
log "self-check passed; done in $((SECONDS - T_START)) s"
