# ladder container image (first version; a later issue finishes it).
#
# NOTE: this Dockerfile has NOT been built yet: the machines it was written on
# have no Docker engine. Treat it as untested until a build has passed.
#
#   docker build -t ladder .
#   docker run --rm -v "$PWD:/data" -w /data ladder encode input.mp4 -o out --format mp4
#
# Two stages on Debian 13 (trixie), whose FFmpeg is 7.1:
#   build   - installs the build dependencies with scripts/install-deps.sh and
#             builds the release preset with scripts/build.sh (tests are left
#             to CI: --no-tests);
#   runtime - only the shared libraries the binary needs, a non-root user.

FROM debian:trixie-slim AS build
WORKDIR /src
COPY . /src
RUN scripts/install-deps.sh \
 && scripts/build.sh --no-tests \
 && rm -rf /var/lib/apt/lists/*

FROM debian:trixie-slim AS runtime
# Runtime libraries. These package names are Debian 13's (trixie): FFmpeg 7.1
# (libavformat61 ...), dav1d 1.5 (libdav1d7), fmt 10, spdlog 1.15. They differ
# on other releases (Debian 12 has libavformat59, libdav1d6, libfmt9, ...).
# libavcodec61 pulls in the SVT-AV1 and libaom encoders it is linked with.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libavformat61 libavcodec61 libavfilter10 libswscale8 libswresample5 libavutil59 libdav1d7 libfmt10 libspdlog1.15 \
 && rm -rf /var/lib/apt/lists/*

COPY --from=build /src/build/release/ladder /usr/local/bin/ladder
COPY --from=build /src/samples/ladders /usr/local/share/ladder/ladders

RUN useradd --create-home --home-dir /home/ladder --shell /usr/sbin/nologin ladder
USER ladder
WORKDIR /home/ladder

# Lets the NVIDIA container runtime expose NVENC/NVDEC when run with --gpus;
# this version of ladder still encodes on the CPU only.
ENV NVIDIA_DRIVER_CAPABILITIES=compute,video,utility

ENTRYPOINT ["ladder"]
CMD ["--help"]
