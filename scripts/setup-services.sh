#!/usr/bin/env bash
# Installs and starts what the test suite needs, idempotently: PostgreSQL 15 with a
# password for role postgres and a database `test`, Redis, and Debian's chromium.
# Used by .ci/run and by developers (`bash scripts/setup-services.sh`).
set -euo pipefail

need_apt=()
command -v pg_ctlcluster >/dev/null 2>&1 || need_apt+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# PostgreSQL: start the cluster if it is not running, then set the password and database.
if ! pg_lsclusters -h 2>/dev/null | grep -q online; then
  cluster=$(pg_lsclusters -h | awk 'NR==1{print $1" "$2}')
  [ -n "$cluster" ] || { pg_createcluster 15 main >/dev/null; cluster="15 main"; }
  pg_ctlcluster $cluster start
fi
for _ in $(seq 1 30); do
  su postgres -c "psql -qAt -c 'select 1'" >/dev/null 2>&1 && break
  sleep 1
done
su postgres -c "psql -q -c \"ALTER ROLE postgres PASSWORD 'postgres'\"" >/dev/null
# Tests open many short-lived pools; raise the connection ceiling once.
if [ "$(su postgres -c "psql -qAt -c 'show max_connections'")" -lt 300 ]; then
  su postgres -c "psql -q -c 'ALTER SYSTEM SET max_connections = 300'" >/dev/null
  pg_ctlcluster $(pg_lsclusters -h | awk 'NR==1{print $1" "$2}') restart
  sleep 2
fi
su postgres -c "psql -qAt -c \"select 1 from pg_database where datname='test'\"" | grep -q 1 \
  || su postgres -c "createdb test"

# Redis: started as a daemon on 127.0.0.1:6379 when not answering.
if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no >/dev/null
  for _ in $(seq 1 20); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 0.5; done
fi
echo "setup: postgres and redis ready"
