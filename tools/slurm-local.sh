#!/bin/sh
# SPDX-License-Identifier: ISC
# tools/slurm-local.sh — an opt-in, one-node Slurm on this machine for
# testing the generated slurm.sbatch for real (tests/cli/test_cluster.sh
# with RXLOCK_TEST_SLURM=1).  Needs root and Debian's slurmctld, slurmd,
# slurm-client and munge packages (`sh tools/slurm-local.sh install`).
#   sh tools/slurm-local.sh start   # munged + slurmctld + slurmd, wait until idle
#   sh tools/slurm-local.sh stop    # stop the daemons this script started
# Everything lives in $RXLOCK_SLURM_DIR (default /tmp/rxlock-slurm); point
# the clients at it with SLURM_CONF=$RXLOCK_SLURM_DIR/slurm.conf.  No
# cgroups, no accounting: proctrack/linuxproc, task/none, one partition.
set -eu
D=${RXLOCK_SLURM_DIR:-/tmp/rxlock-slurm}
cmd=${1:-start}
die() { echo "slurm-local: $*" >&2; exit 1; }
# stop_pidfile FILE: SIGTERM the daemon whose pid FILE holds, wait (10 s) until it is gone.
stop_pidfile() {
  [ -f "$1" ] || return 0
  p=$(cat "$1"); rm -f "$1"
  kill "$p" 2>/dev/null || return 0
  n=0; while kill -0 "$p" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
}

case $cmd in
install)
  [ "$(id -u)" -eq 0 ] || die "needs root"
  pk="slurmctld slurmd slurm-client munge"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pk ||
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pk; }
  exit 0;;
stop)
  stop_pidfile "$D/slurmd.pid"; stop_pidfile "$D/slurmctld.pid"; stop_pidfile "$D/munged.pid"
  exit 0;;
start) ;;
*) die "usage: slurm-local.sh install|start|stop";;
esac

[ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs jobs as their user)"
for b in munged slurmctld slurmd sbatch sinfo; do
  command -v $b >/dev/null 2>&1 || [ -x /usr/sbin/$b ] || die "$b not installed (sh tools/slurm-local.sh install)"
done
PATH=/usr/sbin:$PATH
mkdir -p "$D/state" "$D/spool" "$D/munge"
chmod 755 "$D"
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)

# munge: a private key and socket, so nothing system-wide is touched.
[ -f "$D/munge/munge.key" ] || { dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 2>/dev/null; chmod 600 "$D/munge/munge.key"; }
sock="$D/munge/munge.socket"
if ! [ -S "$sock" ] || ! munge -n -S "$sock" >/dev/null 2>&1; then
  munged --force -S "$sock" --key-file "$D/munge/munge.key" --pid-file "$D/munged.pid" \
         --log-file "$D/munged.log" --seed-file "$D/munge/seed" || die "munged did not start (see $D/munged.log)"
fi

cat > "$D/slurm.conf" <<EOF
ClusterName=rxlocktest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
MaxArraySize=4097
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$D/slurm.conf"
stop_pidfile "$D/slurmd.pid"; stop_pidfile "$D/slurmctld.pid"
slurmctld -i -f "$SLURM_CONF" || die "slurmctld did not start (see $D/slurmctld.log)"
slurmd -f "$SLURM_CONF" || die "slurmd did not start (see $D/slurmd.log)"
k=0
while [ $k -lt 60 ]; do
  st=$(sinfo -h -o %T 2>/dev/null | head -n 1)
  case $st in idle*|mix*|alloc*) echo "slurm-local: up ($host, $cpus CPUs, ${mem} MB); SLURM_CONF=$SLURM_CONF"; exit 0;; esac
  sleep 1; k=$((k + 1))
done
die "node not idle after 60 s (state '$st'; see $D/slurmctld.log and $D/slurmd.log)"
