#!/usr/bin/env bash
# Loads the explorer's /api/v1/book with wrk (Debian's `wrk` package): the explorer bench
# serves a book of POSITIONS (default 1000000) through a real coordinator, and wrk asks it with
# CONNECTIONS (default 200) keep-alive connections on 2 threads for SECONDS (default 15); the
# explorer keeps answers MAX_AGE seconds (default 5; 0: every request reads the coordinator);
# wrk asks DISTINCT positions spread over the book (default 50000).
# On a many-core host, give the server and wrk cores of their own: SERVER_CPUS and WRK_CPUS are
# taskset CPU lists (e.g. 0-7 and 8-15), and WRK_THREADS sets wrk's threads (default 2).
# Usage: bench/wrk.sh [POSITIONS] [CONNECTIONS] [SECONDS] [MAX_AGE] [DISTINCT]
set -euo pipefail
cd "$(dirname "$0")/.."
positions="${1:-1000000}" connections="${2:-200}" seconds="${3:-15}" max_age="${4:-5}" distinct="${5:-50000}"
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
threads="${WRK_THREADS:-2}"
server_pin=() wrk_pin=()
[[ -n "${SERVER_CPUS:-}" ]] && server_pin=(taskset -c "$SERVER_CPUS")
[[ -n "${WRK_CPUS:-}" ]] && wrk_pin=(taskset -c "$WRK_CPUS")
log="$(mktemp)" server=""
trap 'pkill -P "$server" 2>/dev/null || true; kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
# Serves long enough for the fill, a warm-up and the run.
${server_pin[@]+"${server_pin[@]}"} cargo bench -p pentagrid-bench --bench explorer -- "$positions" 0 $((seconds + 600)) 0 "$max_age" "$distinct" >"$log" 2>&1 &
server=$!
until grep -q '^serving ' "$log"; do
    kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 1
done
grep '^book of' "$log"
read -r _ url _ _ _ _ _ _ _ asked < <(grep '^serving ' "$log")
${wrk_pin[@]+"${wrk_pin[@]}"} wrk -t"$threads" -c"$connections" -d2s -s bench/wrk-book.lua "$url" -- "$asked" >/dev/null
${wrk_pin[@]+"${wrk_pin[@]}"} wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s bench/wrk-book.lua "$url" -- "$asked"
