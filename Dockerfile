# ladder container image: Debian 13 (trixie; FFmpeg 7.1, which has av1_nvenc
# and av1_qsv), ladder built from this repository, running as a non-root user.
#
#   docker build -t ladder .        (or podman build -t ladder .)
#   docker run --rm --gpus all -v "$PWD:/work" ladder encode /work/in.mp4 -o /work/out --policy all-gpus
#
# docs/deployment.md says more (NVIDIA, Intel, users and permissions).
#
# Two stages, whose install and build steps are the repository's scripts:
#   build   - scripts/install-deps.sh --build (build dependencies only),
#             scripts/build.sh --no-tests, then scripts/runtime-packages.sh:
#             the Debian packages owning the binary's shared libraries;
#   runtime - scripts/install-deps.sh --runtime with that list (plus the
#             libraries loaded at run time for Intel GPUs), the binary, the
#             ladder presets and a non-root user.
#
# CI builds this file as written with buildah (scripts/build-image.sh, run by
# scripts/check-debian13.sh), on a debian:trixie-slim base made locally with
# debootstrap since no registry is reachable there, runs the image's
# ENTRYPOINT as its USER, exports it as a docker-archive and runs the test
# suite in a container of the build stage.

FROM debian:trixie-slim AS build
WORKDIR /src
# The dependencies first, so that their layer stays cached while sources change.
COPY scripts/install-deps.sh scripts/
RUN scripts/install-deps.sh --build
COPY . .
# ON: compiler warnings are errors (CI builds with --build-arg LADDER_WERROR=ON);
# unset, the build's default (off). Declared here, so the layers above stay
# cached whatever its value.
ARG LADDER_WERROR
RUN scripts/build.sh --no-tests
RUN scripts/runtime-packages.sh build/release/ladder > build/runtime-packages.txt

FROM debian:trixie-slim AS runtime
COPY --from=build /src/scripts/install-deps.sh /src/build/runtime-packages.txt /tmp/ladder-install/
RUN /tmp/ladder-install/install-deps.sh --runtime /tmp/ladder-install/runtime-packages.txt \
 && rm -rf /var/lib/apt/lists/* /tmp/ladder-install
COPY --from=build /src/build/release/ladder /usr/local/bin/ladder
COPY --from=build /src/samples/ladders /usr/local/share/ladder/ladders
# uid/gid 1000, numeric in USER so that "runAsNonRoot" can check it. /work is
# where the documentation mounts the input and output folder; it belongs to
# the user so that the image also works without a mount.
RUN useradd --create-home --home-dir /home/ladder --uid 1000 --user-group --shell /usr/sbin/nologin ladder \
 && install -d -o 1000 -g 1000 /work

# The NVIDIA Container Toolkit mounts the driver's CUDA (compute), NVENC/NVDEC
# (video) and NVML (utility) libraries only for the capabilities listed here.
ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,video,utility

USER 1000:1000
WORKDIR /work
ENTRYPOINT ["ladder"]
CMD ["--help"]
