#!/usr/bin/env bash
# A one-node Slurm on this machine, for the sweep's Slurm test and for trying `schedlab sweep
# --slurm` without a cluster: installs Debian's slurmctld, slurmd, slurm-client and munge
# (apt-get), writes a slurm.conf for this host under $SCHEDLAB_SLURM_DIR, and starts munged,
# slurmctld and slurmd. Clients find it through SLURM_CONF (printed by `env`).
#   scripts/slurm-local.sh start    install what is missing, start the daemons, wait until the node is idle
#   scripts/slurm-local.sh env      the line to eval: export SLURM_CONF=...
#   scripts/slurm-local.sh stop     stop the daemons this script started
# SCHEDLAB_SLURM_ACCOUNTING=1 also keeps job accounting, so that `sacct` answers: Debian's
# MariaDB and slurmdbd (apt-get), a database under the same folder on 127.0.0.1 only, and
# slurmctld storing through slurmdbd (the `format: sacct` test writes its fixture with it).
# SCHEDLAB_SLURM_MAX_ARRAY_SIZE sets slurm.conf's MaxArraySize (default 100001; the sweep test
# lowers it to see a sweep split into several arrays).
# Exits 1 with one line saying why when Slurm cannot run here (not root, no apt-get, a daemon
# that will not start).
set -uo pipefail
dir=${SCHEDLAB_SLURM_DIR:-/tmp/schedlab-slurm}
conf=$dir/slurm.conf
why() { echo "slurm-local: $*" >&2; exit 1; }
accounting=${SCHEDLAB_SLURM_ACCOUNTING:-0}

start() {
  [ "$(id -u)" = 0 ] || why "needs root (to run slurmd and munged)"
  if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
    ! command -v munged >/dev/null; then
    command -v apt-get >/dev/null || why "no apt-get to install slurmctld, slurmd, slurm-client and munge"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client munge \
      >"$dir.apt.log" 2>&1 || why "apt-get install failed (see $dir.apt.log)"
  fi
  if [ "$accounting" = 1 ] && { ! command -v slurmdbd >/dev/null || ! command -v mariadbd >/dev/null; }; then
    command -v apt-get >/dev/null || why "no apt-get to install slurmdbd and mariadb-server"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurmdbd mariadb-server \
      >"$dir.apt.log" 2>&1 || why "apt-get install failed (see $dir.apt.log)"
  fi
  stop 2>/dev/null
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
  local host cpus accounting_conf=""
  host=$(hostname -s)
  cpus=$(nproc)
  if [ "$accounting" = 1 ]; then
    accounting_conf="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$host
AccountingStoragePort=6920
AccountingStoragePass=$dir/munge/munge.socket
JobAcctGatherType=jobacct_gather/linux"
  fi
  # munge: its own key and socket here, so that a system munged is never touched.
  [ -s "$dir/munge/munge.key" ] || { head -c 1024 /dev/urandom >"$dir/munge/munge.key"; chmod 400 "$dir/munge/munge.key"; }
  chown -R munge:munge "$dir/munge" 2>/dev/null || true
  cat >"$conf" <<CONF
# Written by scripts/slurm-local.sh: one node, no accounting, no cgroups.
ClusterName=schedlab
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=6917
SlurmdPort=6918
ReturnToService=2
MaxArraySize=${SCHEDLAB_SLURM_MAX_ARRAY_SIZE:-100001}
$accounting_conf
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  if [ "$accounting" = 1 ]; then sed -i '/^JobAcctGatherType=jobacct_gather\/none$/d; /^AccountingStorageType=accounting_storage\/none$/d' "$conf"; fi
  munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" -f 2>>"$dir/log/start.log" ||
    why "munged would not start (see $dir/log/)"
  export SLURM_CONF=$conf
  [ "$accounting" = 1 ] && start_accounting "$host"
  slurmctld -f "$conf" 2>>"$dir/log/start.log" || why "slurmctld would not start (see $dir/log/)"
  slurmd -f "$conf" 2>>"$dir/log/start.log" || why "slurmd would not start (see $dir/log/)"
  for _ in $(seq 100); do
    if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "slurm-local: one node ($host, $cpus CPUs) up; export SLURM_CONF=$conf"
      return 0
    fi
    sleep 0.2
  done
  why "the node did not come up within 20 s (see $dir/log/)"
}

# MariaDB on 127.0.0.1:6919 with its files under $dir/db, slurmdbd on :6920, the cluster added.
start_accounting() {
  local host=$1
  mkdir -p "$dir/db"
  if [ ! -d "$dir/db/data/mysql" ]; then
    mariadb-install-db --datadir="$dir/db/data" --user=root --auth-root-authentication-method=socket \
      >"$dir/log/mariadb-install.log" 2>&1 || why "mariadb-install-db failed (see $dir/log/)"
  fi
  mariadbd --datadir="$dir/db/data" --socket="$dir/db/mysqld.sock" --pid-file="$dir/db/mysqld.pid" --user=root \
    --bind-address=127.0.0.1 --port=6919 --log-error="$dir/log/mariadb.log" >/dev/null 2>&1 &
  for _ in $(seq 100); do
    mariadb -S "$dir/db/mysqld.sock" -e "select 1" >/dev/null 2>&1 && break
    sleep 0.2
  done
  mariadb -S "$dir/db/mysqld.sock" -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'schedlab-local';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" 2>>"$dir/log/start.log" ||
    why "MariaDB would not start (see $dir/log/mariadb.log)"
  cat >"$dir/slurmdbd.conf" <<DBD
# Written by scripts/slurm-local.sh: accounting for the one-node cluster, on 127.0.0.1 only.
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
DbdHost=$host
DbdPort=6920
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=6919
StorageUser=slurm
StoragePass=schedlab-local
StorageLoc=slurm_acct_db
PidFile=$dir/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
DBD
  chmod 600 "$dir/slurmdbd.conf"
  # slurmdbd reads slurmdbd.conf from slurm.conf's folder (SLURM_CONF).
  SLURM_CONF=$conf slurmdbd 2>>"$dir/log/start.log" || why "slurmdbd would not start (see $dir/log/)"
  for _ in $(seq 40); do  # 20 s at most
    timeout 2 sacctmgr -i add cluster schedlab >/dev/null 2>&1 && return 0
    timeout 2 sacctmgr -n list cluster format=cluster 2>/dev/null | grep -q schedlab && return 0
    sleep 0.5
  done
  why "slurmdbd did not answer within 20 s (see $dir/log/slurmdbd.log)"
}

stop() {
  for pid in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/slurmdbd.pid" "$dir/db/mysqld.pid" "$dir/munge/munged.pid"; do
    [ -s "$pid" ] && kill "$(cat "$pid")" 2>/dev/null
  done
  sleep 0.3
  return 0
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) echo "usage: scripts/slurm-local.sh start|stop|env" >&2; exit 2 ;;
esac
