#!/usr/bin/env bash
# make test-citus: the integration and surface tests against a real Citus cluster on this machine.
#
# Installs Debian's PostgreSQL 15 and its build headers when missing (as root), builds pgvector and
# Citus from ../shared/vendor (or CITUS_VENDOR; for a clone of a checkout on this machine with no
# ../shared beside it, its origin's ../shared/vendor) into that PostgreSQL once (skipped when both
# extensions are already installed), starts a coordinator and two workers on free localhost ports
# in a temporary directory as a non-root user, creates the extensions, registers the workers, then
# runs pytest with FLEET_MEMORY_TEST_DATABASE_URL pointing at the coordinator: tests/conftest.py
# gives every test a schema of its own there, migrated and distributed as `fleet-memory db
# distribute` does. The cluster is stopped and its directory removed at the end, whatever happened.
#
#   tests/citus/cluster.sh [pytest arguments]      (default: tests/integration tests/surfaces tests/citus)
#   tests/citus/cluster.sh --shell [-c COMMAND]     start the cluster and run a shell beside it
#   tests/citus/cluster.sh --scale-out              bench/soak.py while a third worker joins (scale_out.sh)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"

vendor_dir() {  # CITUS_VENDOR, else ../shared/vendor beside the checkout, else beside its origin
  if [ -n "${CITUS_VENDOR:-}" ]; then echo "$CITUS_VENDOR"; return; fi
  if [ -d "$ROOT/../shared/vendor" ]; then echo "$ROOT/../shared/vendor"; return; fi
  # a clone of a checkout on this machine (git clone /path/to/main /tmp/copy): the origin's ../shared
  local origin; origin="$(git -C "$ROOT" config --get remote.origin.url 2>/dev/null || true)"
  origin="${origin#file://}"
  if [ "${origin#/}" != "$origin" ] && [ -d "$origin/../shared/vendor" ]; then
    (cd "$origin/../shared/vendor" && pwd); return
  fi
  echo "$ROOT/../shared/vendor"
}
VENDOR="$(vendor_dir)"
PGBIN=/usr/lib/postgresql/15/bin
PG_CONFIG="$PGBIN/pg_config"
RUN_AS="${CITUS_USER:-fmcitus}"
WORKERS="${CITUS_WORKERS:-2}"
DBNAME=fleet
PACKAGES="postgresql-15 postgresql-server-dev-15 liblz4-dev libzstd-dev libcurl4-openssl-dev libkrb5-dev"

say() { echo "citus: $*" >&2; }

install_packages() {
  local missing=()
  for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || { say "missing Debian packages: sudo apt-get install ${missing[*]}"; exit 2; }
  say "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

build_extensions() {
  local lib share
  lib="$("$PG_CONFIG" --pkglibdir)"; share="$("$PG_CONFIG" --sharedir)/extension"
  if [ -f "$lib/citus.so" ] && [ -f "$lib/vector.so" ] && [ -f "$share/vector.control" ]; then return 0; fi
  [ -d "$VENDOR" ] || { say "no vendored sources at $VENDOR"; exit 2; }
  local build; build="$(mktemp -d /tmp/fm-citus-build.XXXXXX)"
  say "building pgvector and Citus from $VENDOR in $build (once)"
  (
    cd "$build"
    tar xzf "$VENDOR/pgvector-0.8.5.tar.gz"
    make -s -C pgvector-0.8.5 -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >/dev/null
    make -s -C pgvector-0.8.5 install PG_CONFIG="$PG_CONFIG" >/dev/null
    tar xzf "$VENDOR/citus-13.2.2.tar.gz"
    cd citus-13.2.2
    patch -s -p1 < "$VENDOR/citus-13.2.2-pg15-compat.patch"
    PG_CONFIG="$PG_CONFIG" ./configure -q >/dev/null
    make -s -j"$(nproc)" >/dev/null 2>&1
    make -s install >/dev/null
  )
  rm -rf "$build"
}

as_user() {  # run a command as the cluster's user (PostgreSQL refuses to run as root)
  if [ "$(id -u)" = 0 ]; then runuser -u "$RUN_AS" -- "$@"; else "$@"; fi
}

ensure_user() {
  [ "$(id -u)" = 0 ] || { RUN_AS="$(id -un)"; return 0; }
  id -u "$RUN_AS" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$RUN_AS"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

CLUSTER=""
PORTS=()

start_node() {  # start_node NAME PORT: initdb, Citus's settings, start
  local data="$CLUSTER/$1"
  as_user "$PGBIN/initdb" -D "$data" -U "$RUN_AS" --auth=trust --no-sync -E UTF8 >/dev/null
  cat >> "$data/postgresql.conf" <<CONF
port = $2
listen_addresses = 'localhost'
unix_socket_directories = '$CLUSTER'
shared_preload_libraries = 'citus'
max_prepared_transactions = 200
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
citus.shard_count = 4
wal_level = logical
# Citus deparses a statement it sends to a shard (an index's operator class) unqualified, and the
# tests keep pgvector in fm_ext: every connection finds it there
search_path = '"\$user", public, fm_ext'
# nothing of pgvector's: a transaction carries its vector scan settings to the workers itself
# (SET LOCAL propagated by Citus, docs/deploy.md), and tests/citus/test_settings.py checks that
# the workers' own defaults are pgvector's
CONF
  as_user "$PGBIN/pg_ctl" -D "$data" -l "$CLUSTER/$1.log" -w -t 60 start >/dev/null
  as_user "$PGBIN/psql" -qAt -h localhost -p "$2" -d postgres -c "CREATE DATABASE $DBNAME" >/dev/null
  # pgvector in a schema of its own: the tests' search_path is "their schema, fm_ext", never public
  psql_on "$2" -c "CREATE EXTENSION citus; CREATE SCHEMA fm_ext; CREATE EXTENSION vector SCHEMA fm_ext;" >/dev/null
}

psql_on() {  # psql_on PORT ARGS...: psql into the cluster's database on one node
  local port="$1"; shift
  as_user "$PGBIN/psql" -v ON_ERROR_STOP=1 -qAt -h localhost -p "$port" -d "$DBNAME" "$@"
}

add_worker() {  # add_worker INDEX: start one more worker and register it with the coordinator
  local port; port="$(free_port)"
  start_node "worker$1" "$port"
  PORTS+=("$port")
  psql_on "${PORTS[0]}" -c "SELECT citus_add_node('localhost', $port)" >/dev/null
}

start_cluster() {
  CLUSTER="$(mktemp -d /tmp/fm-citus.XXXXXX)"
  chmod 755 "$CLUSTER"
  [ "$(id -u)" = 0 ] && chown "$RUN_AS" "$CLUSTER"
  PORTS=("$(free_port)")
  start_node coordinator "${PORTS[0]}"
  psql_on "${PORTS[0]}" -c "SELECT citus_set_coordinator_host('localhost', ${PORTS[0]})" >/dev/null
  for i in $(seq 1 "$WORKERS"); do add_worker "$i"; done
  say "coordinator on port ${PORTS[0]}, workers on ${PORTS[*]:1} ($CLUSTER)"
}

stop_cluster() {
  [ -n "$CLUSTER" ] || return 0
  for data in "$CLUSTER"/coordinator "$CLUSTER"/worker*; do
    [ -d "$data" ] && as_user "$PGBIN/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
  done
  if [ -n "${CITUS_KEEP_LOGS:-}" ]; then say "logs kept in $CLUSTER"; else rm -rf "$CLUSTER"; fi
}

main() {
  install_packages
  build_extensions
  ensure_user
  trap stop_cluster EXIT
  trap 'exit 130' INT TERM
  start_cluster
  export FLEET_MEMORY_TEST_DATABASE_URL="postgresql://$RUN_AS@localhost:${PORTS[0]}/$DBNAME"
  export CITUS_CLUSTER_DIR="$CLUSTER" CITUS_PORTS="${PORTS[*]}"
  cd "$ROOT"
  if [ "${1:-}" = "--shell" ]; then shift; "${SHELL:-bash}" "$@"; return; fi
  if [ "${1:-}" = "--scale-out" ]; then . "$ROOT/tests/citus/scale_out.sh"; scale_out; return; fi
  if [ $# -eq 0 ]; then set -- tests/integration tests/surfaces tests/citus; fi
  "$ROOT/.venv/bin/python" -m pytest -q -p no:cacheprovider --basetemp="${CITUS_BASETEMP:-/tmp/bt-citus}" "$@"
}

main "$@"
