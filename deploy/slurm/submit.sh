#!/usr/bin/env bash
# Submits the three steps of one title as Slurm jobs, each waiting for the
# one before it to succeed:
#
#   SOURCE=/shared/in/title.mp4 WORKDIR=/shared/work/title OUTDIR=/shared/out/title \
#     LADDER=/shared/bin/ladder bash deploy/slurm/submit.sh
#
# sbatch passes this environment on to the jobs (SOURCE, WORKDIR, OUTDIR,
# LADDER: see the .sbatch files for their defaults). Prints the three job ids.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# --parsable prints "jobid" or "jobid;cluster"; the dependency wants the id.
plan="$(sbatch --parsable "$here/plan.sbatch")"
plan="${plan%%;*}"
# afterok on an array job waits for every one of its tasks to succeed.
encode="$(sbatch --parsable --dependency="afterok:$plan" "$here/encode.sbatch")"
encode="${encode%%;*}"
stitch="$(sbatch --parsable --dependency="afterok:$encode" "$here/stitch.sbatch")"
stitch="${stitch%%;*}"

echo "plan $plan, encode $encode (array), stitch $stitch"
