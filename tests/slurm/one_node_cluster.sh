#!/usr/bin/env bash
# Test equipment: a real one-node Slurm cluster (Debian's munge, slurmctld,
# slurmd), started by hand in a folder of its own, for tests that submit
# deploy/slurm as a user would.
#
#   one_node_cluster.sh start DIR   prints SLURM_CONF=DIR/slurm.conf when the
#                                   node is idle; exit 77 (with why) where it
#                                   cannot run: not root, packages missing
#   one_node_cluster.sh stop DIR    cancels every job, then stops the daemons
#                                   by the pids in DIR (safe to repeat)
#
# No systemd: the daemons run as root with their state, logs, sockets and
# pid files in DIR, on two free TCP ports. The node declares 32 CPUs and
# 70000 MB whatever the machine has (SlurmdParameters=config_overrides), so
# that the four 8-CPU, 16 GB array tasks of deploy/slurm/encode.sbatch run at
# once on a 2-core machine, as they would on four nodes. Processes are
# tracked by their parent (proctrack/linuxproc) and not confined
# (task/none): neither needs cgroups.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
action=$1
dir=$2

stop_cluster() {
    local conf="$dir/slurm.conf"
    if [[ -f "$conf" && -f "$dir/slurmctld.pid" ]]; then
        # Jobs first: a batch script outlives slurmd in its slurmstepd.
        SLURM_CONF="$conf" timeout 10 scancel --full --quiet --user=root 2>/dev/null || true
        local deadline=$((SECONDS + 20))
        while ((SECONDS < deadline)) && [[ -n "$(SLURM_CONF="$conf" timeout 5 squeue -h -o %i 2>/dev/null)" ]]; do
            sleep 0.2
        done
    fi
    local name pid
    for name in slurmd slurmctld munged; do
        [[ -f "$dir/$name.pid" ]] || continue
        pid=$(cat "$dir/$name.pid")
        if [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null; then
            local deadline=$((SECONDS + 15))
            while ((SECONDS < deadline)) && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$dir/$name.pid"
    done
}

if [[ $action == stop ]]; then
    stop_cluster
    exit 0
fi
[[ $action == start ]] || usage

if [[ $(id -u) -ne 0 ]]; then
    echo "skipped: a Slurm cluster started by hand runs its daemons as root (slurmd starts jobs as their user)" >&2
    exit 77
fi
missing=()
for tool in munged munge slurmctld slurmd sbatch scontrol squeue sinfo scancel python3; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]})); then
    echo "skipped: ${missing[*]} not installed (scripts/install-deps.sh installs munge, slurmctld, slurmd and slurm-client)" >&2
    exit 77
fi

dir=$(realpath -m "$dir")
mkdir -p "$dir"/{munge,state,spool,log}
chmod 700 "$dir/munge"
trap 'echo "one_node_cluster: start failed; logs in $dir/log" >&2; stop_cluster' ERR

head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
# --force: munged refuses a socket under a world-writable /tmp otherwise.
munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" --log-file="$dir/log/munged.log" \
    --pid-file="$dir/munged.pid" --seed-file="$dir/munge/seed"

read -r ctld_port slurmd_port < <(python3 -c '
import socket
ports = []
held = []
for _ in range(2):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); held.append(s); ports.append(s.getsockname()[1])
print(*ports)')
node=$(hostname -s)
cat >"$dir/slurm.conf" <<EOF
ClusterName=laddertest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SlurmdParameters=config_overrides
ReturnToService=2
# Finished jobs stay visible to scontrol for the test's checks.
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=32 RealMemory=70000 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# Nothing here uses cgroups, but slurmd loads a cgroup plugin anyway. Slurm
# 22.05 (Debian 12) finds the host's cgroups itself and knows no way to say
# none; from 23.11 (Debian 13: 24.11) "disabled" says it, which a root
# without /sys/fs/cgroup mounted (a chroot) needs.
# `slurmd -V`: "slurm 24.11.5", or "slurm-wlm 22.05.8" from Debian.
read -r major minor < <(slurmd -V | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\).*/\1 \2/p') || true
major=${major:-0} minor=${minor:-0}
if ((10#$major > 23 || (10#$major == 23 && 10#$minor >= 11))); then
    echo "CgroupPlugin=disabled" >"$dir/cgroup.conf"
fi
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"

deadline=$((SECONDS + 60))
state=""
while ((SECONDS < deadline)); do
    state=$(timeout 5 sinfo -h -N -o %T 2>/dev/null || true)
    [[ $state == idle ]] && break
    sleep 0.2
done
if [[ $state != idle ]]; then
    echo "one_node_cluster: the node did not come up (state '${state}'); logs in $dir/log" >&2
    tail -n 20 "$dir"/log/*.log >&2 || true
    stop_cluster
    exit 1
fi
trap - ERR
echo "SLURM_CONF=$SLURM_CONF"
