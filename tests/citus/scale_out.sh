# Sourced by tests/citus/cluster.sh --scale-out: bench/soak.py runs against a
# `fleet-memory serve` on the coordinator (its SIGKILL and restart at half time included) while a
# third worker joins and citus_rebalance_start moves shards to it. Writes $CITUS_OUT (default
# /tmp/fm-citus-scale-out): soak.json (5xx, acknowledged puts lost or not whole), placements
# before and after, the rebalance's seconds; exits with soak's status.

placements() {  # shard placements per worker port, one line
  psql_on "${PORTS[0]}" -c "SELECT string_agg(nodeport || ':' || n, ' ' ORDER BY nodeport) FROM (SELECT nodeport,
    count(*) AS n FROM pg_dist_shard_placement GROUP BY nodeport) p"
}

wait_for_load() {  # until the soak has stored a few documents (its server is up and under load)
  local schema="$1" n=0
  for _ in $(seq 1 600); do
    n="$(psql_on "${PORTS[0]}" -c "SELECT count(*) FROM $schema.documents" 2>/dev/null || echo 0)"
    [ "${n:-0}" -ge 20 ] && return 0
    sleep 1
  done
  say "the soak stored no documents in 600 s"; return 1
}

scale_out() {
  local out="${CITUS_OUT:-/tmp/fm-citus-scale-out}" schema=fm_soak
  mkdir -p "$out"
  local url="$FLEET_MEMORY_TEST_DATABASE_URL?options=-csearch_path%3D$schema%2Cfm_ext"
  psql_on "${PORTS[0]}" -c "CREATE SCHEMA $schema" >/dev/null
  FLEET_MEMORY_DATABASE_URL="$url" "$ROOT/.venv/bin/fleet-memory" db distribute
  FLEET_MEMORY_DATABASE_URL="$url" "$ROOT/.venv/bin/python" "$ROOT/bench/soak.py" \
    --duration "${SOAK_S:-240}" --threads "${SOAK_THREADS:-4}" --agents 40 --json "$out/soak.json" \
    > "$out/soak.txt" 2>&1 &
  local soak=$!
  wait_for_load "$schema" || { kill "$soak"; return 1; }
  sleep "${SCALE_AFTER_S:-15}"
  echo "before: $(placements)" > "$out/placements.txt"
  add_worker "$((WORKERS + 1))"
  local started=$SECONDS
  psql_on "${PORTS[0]}" -c "SELECT citus_rebalance_start()" >/dev/null
  psql_on "${PORTS[0]}" -c "SELECT citus_rebalance_wait()" >/dev/null
  echo "rebalance_s: $((SECONDS - started))" >> "$out/placements.txt"
  echo "after: $(placements)" >> "$out/placements.txt"
  local status=0
  wait "$soak" || status=$?
  cat "$out/placements.txt" "$out/soak.txt" >&2
  return $status
}
