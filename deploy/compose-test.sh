#!/usr/bin/env bash
# deploy/compose.yaml for real, as a user runs it: `docker-compose up --scale worker=2` with one
# token per role, a self-play batch submitted through the compose `client` service (admin
# token), and then checks that both workers joined, that the batch was played, that the
# explorer (read token) serves the cluster's status and that the coordinator's metrics are
# published on the host's loopback. Bounded in time; takes the project down (volumes included)
# whatever happens; the last line is a summary.
#
#   deploy/compose-test.sh [--binary PATH]    (default: builds the release binary)
set -euo pipefail
cd "$(dirname "$0")/.."

binary_args=()
if [ "${1:-}" = "--binary" ]; then binary_args=(--binary "$2"); fi

WORKERS=2
GAMES=4
TIME_LIMIT=300          # seconds for the whole run, image build excluded

project="pgcompose$$"
image="pentagrid:$project"
secrets="$(mktemp -d)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export PENTAGRID_IMAGE="$image" PENTAGRID_SECRETS_DIR="$secrets" PENTAGRID_LEASE_SECONDS=10
PENTAGRID_PORT="$(free_port)"
PENTAGRID_METRICS_PORT="$(free_port)"
PENTAGRID_EXPLORER_PORT="$(free_port)"
export PENTAGRID_PORT PENTAGRID_METRICS_PORT PENTAGRID_EXPLORER_PORT
compose() { docker-compose -p "$project" -f deploy/compose.yaml "$@"; }
started=$SECONDS

cleanup() {
    compose --profile client down -v --remove-orphans >/dev/null 2>&1 || true
    docker image rm "$image" >/dev/null 2>&1 || true
    rm -rf "$secrets"
}
trap cleanup EXIT
trap 'echo "deploy/compose-test.sh: interrupted" >&2; exit 130' INT TERM

# shellcheck source=deploy/lib.sh
source deploy/lib.sh
fail() {
    say "FAILED: $*"
    compose logs --tail 15 2>&1 || true
    echo "deploy/compose-test.sh: FAILED ($*) after $((SECONDS - started))s"
    exit 1
}
trap 'fail "line $LINENO: a command failed"' ERR

deploy/build-image.sh "${binary_args[@]}" --tag "$image" >/dev/null
started=$SECONDS
say "image $image built"

role_tokens "$secrets"
chmod 0755 "$secrets"

compose up -d --scale worker="$WORKERS" >/dev/null 2>&1 || fail "docker-compose up failed"
say "up: coordinator, $WORKERS workers, explorer"

client() { compose run --rm -T client "$@"; }
status() { client status --json 2>/dev/null; }

wait_for "len(s['workers']) == $WORKERS"
say "$WORKERS workers joined"
client submit selfplay --games "$GAMES" --config uct:playouts=2000 >/dev/null 2>&1
wait_for "s['done'] == $GAMES and s['games'] == $GAMES"
say "$GAMES self-play games played"

cluster="$(curl -fsS "http://127.0.0.1:$PENTAGRID_EXPLORER_PORT/api/v1/cluster")" ||
    fail "the explorer did not answer on 127.0.0.1:$PENTAGRID_EXPLORER_PORT"
echo "$cluster" | python3 -c "import json,sys; s=json.load(sys.stdin); assert s['jobs']['done'] == $GAMES, s" ||
    fail "the explorer's cluster status does not show the $GAMES games: $cluster"
metrics="$(curl -fsS "http://127.0.0.1:$PENTAGRID_METRICS_PORT/metrics")" ||
    fail "no metrics on 127.0.0.1:$PENTAGRID_METRICS_PORT"
echo "$metrics" | grep -q '^pentagrid_jobs' || fail "the metrics lack pentagrid_jobs"
say "explorer and metrics answer on the host's loopback"

echo "deploy/compose-test.sh: PASSED: compose up --scale worker=$WORKERS with per-role tokens;" \
    "$GAMES games played; explorer and metrics published; $((SECONDS - started))s"
