#!/usr/bin/env bash
# The cluster for real, as containers on a private Docker network: a coordinator and three
# workers run a campaign (analyses, self-play games and a short match) while one worker is
# killed, another is cut off from the network for longer than its lease and reconnected, and
# the coordinator is killed and restarted mid-ingest, and a backup taken while the workers
# submit is restored, verified and served by a second coordinator. Then it checks that every job was done
# exactly once, that the stored totals are exactly the sum of the acknowledged results, that the
# partitioned worker's late result was answered "duplicate" or refused, and that the match has
# exactly its pairs. Bounded in time; removes its containers, network and volume whatever
# happens; the last line is a summary.
#
#   deploy/test.sh [--binary PATH]    (default: builds the release binary)
set -euo pipefail
cd "$(dirname "$0")/.."

binary_args=()
if [ "${1:-}" = "--binary" ]; then binary_args=(--binary "$2"); fi

LEASE=4                 # seconds; the partition lasts well over this
ANALYSES=40
PLAYOUTS=400000         # a few seconds a job: the partition must outlast one
GAMES=10
SELFPLAY_PLAYER="uct:playouts=15000"
PAIRS=4
TIME_LIMIT=420          # seconds for the whole run, image build excluded

run="pgtest-$$"
image="pentagrid:$run"
network="$run-net"
volume="$run-data"
work="$(mktemp -d)"
started=$SECONDS

cleanup() {
    local containers
    containers="$(docker ps -aq --filter "name=^$run-" 2>/dev/null || true)"
    # -v: with their anonymous /data volumes.
    if [ -n "$containers" ]; then docker rm -f -v $containers >/dev/null 2>&1 || true; fi
    docker network rm "$network" >/dev/null 2>&1 || true
    docker volume rm "$volume" >/dev/null 2>&1 || true
    docker image rm "$image" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "deploy/test.sh: interrupted" >&2; exit 130' INT TERM

# shellcheck source=deploy/lib.sh
source deploy/lib.sh
fail() {
    say "FAILED: $*"
    for c in coordinator w1 w2 w3 match restored; do
        echo "--- last log lines of $c"
        docker logs --tail 15 "$run-$c" 2>&1 || true
    done
    echo "deploy/test.sh: FAILED ($*) after $((SECONDS - started))s"
    exit 1
}
trap 'fail "line $LINENO: a command failed"' ERR

deploy/build-image.sh "${binary_args[@]}" --tag "$image" >/dev/null
started=$SECONDS
say "image $image built"

mkdir -p "$work/acks"
chmod 0777 "$work/acks"
mkdir -m 0755 "$work/secrets"
role_tokens "$work/secrets"
docker network create "$network" >/dev/null
docker volume create "$volume" >/dev/null
secrets_mount=(-v "$work/secrets:/run/secrets/pentagrid:ro")
coordinator_url=(-e PENTAGRID_COORDINATOR=http://coordinator:7878)
# The client environment of a role: its token file.
as_role() { echo "-e PENTAGRID_TOKEN_FILE=/run/secrets/pentagrid/$1.token"; }

# A one-shot client container on the private network, with the admin token (pg) or another
# role's (pg_as ROLE).
pg_as() {
    local role="$1"
    shift
    docker run --rm -i --network "$network" "${secrets_mount[@]}" "${coordinator_url[@]}" \
        $(as_role "$role") "$image" "$@"
}
pg() { pg_as admin "$@"; }
status() { pg_as read status --json 2>/dev/null; }

start_coordinator() {
    docker start "$run-coordinator" >/dev/null
    while ! pg_as read health >/dev/null 2>&1; do check_time; sleep 0.5; done
}
docker create --name "$run-coordinator" --network "$network" --network-alias coordinator \
    -v "$volume:/data" "${secrets_mount[@]}" --read-only --cap-drop ALL \
    "$image" coordinator --listen 0.0.0.0:7878 --db /data/db \
    --worker-token-file /run/secrets/pentagrid/worker.token \
    --admin-token-file /run/secrets/pentagrid/admin.token \
    --read-token-file /run/secrets/pentagrid/read.token --lease-seconds "$LEASE" \
    --metrics-listen 0.0.0.0:9100 >/dev/null
start_coordinator
say "coordinator serving"

# Roles: writes with a worker or a read token are refused with the role they need.
for role in worker read; do
    if refusal="$(pg_as "$role" submit selfplay --games 1 2>&1)"; then
        fail "a $role token was allowed to submit jobs"
    fi
    echo "$refusal" | grep -q "admin" || fail "the refusal of a $role token does not name the admin role: $refusal"
done
say "worker and read tokens refused on submit (the refusal names the admin role)"

start_worker() {
    docker run -d --name "$run-$1" --network "$network" "${secrets_mount[@]}" \
        "${coordinator_url[@]}" $(as_role worker) -v "$work/acks:/acks" --read-only --cap-drop ALL \
        "$image" worker --threads 1 --name "$1" --ack-log "/acks/$1" >/dev/null
}
for w in w1 w2 w3; do start_worker "$w"; done

# The campaign: analyses, self-play games, and a match from a one-shot client container.
printf "start\n%.0s" $(seq "$ANALYSES") | pg submit analyse - --playouts "$PLAYOUTS" \
    --config uct:policy=uniform > "$work/analyses"
pg submit selfplay --games "$GAMES" --config "$SELFPLAY_PLAYER" > "$work/selfplay"
docker run -d --name "$run-match" --network "$network" "${secrets_mount[@]}" \
    "${coordinator_url[@]}" $(as_role admin) \
    "$image" match --a uct:playouts=20000 --b uct:playouts=2000 --pairs "$PAIRS" --json >/dev/null
TOTAL=$((ANALYSES + GAMES + PAIRS))
say "campaign queued: $ANALYSES analyses x $PLAYOUTS playouts, $GAMES self-play games, $PAIRS match pairs"

# 1. A worker killed mid-job.
wait_for "w1 to hold a lease" "any(w['name'] == 'w1' and w['leases'] > 0 for w in s['workers']) and s['done'] >= 2"
docker kill "$run-w1" >/dev/null
say "killed w1 (SIGKILL)"

# 2. A worker cut off for longer than its lease while it runs a job, then reconnected.
wait_for "w2 to hold a lease" "any(w['name'] == 'w2' and w['leases'] > 0 for w in s['workers'])"
docker network disconnect "$network" "$run-w2"
say "w2 disconnected from the network"
sleep $((3 * LEASE + 4))
docker network connect "$network" "$run-w2"
say "w2 reconnected"
late_result() {
    grep -q ' duplicate$' "$work/acks/w2" 2>/dev/null && return 0
    docker logs "$run-w2" 2>&1 | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        event = json.loads(line)
    except ValueError:
        continue
    if event.get("fields", {}).get("message") == "result refused":
        sys.exit(0)
sys.exit(1)'
}
while ! late_result; do check_time; sleep 1; done
say "w2's late result answered: $(grep -c ' duplicate$' "$work/acks/w2" 2>/dev/null || true) duplicate ack(s), $(docker logs "$run-w2" 2>&1 | grep -c '"result refused"' || true) refusal(s)"

# 3. The coordinator killed and restarted while results stream in.
s="$(status)"
[ "$(echo "$s" | field "s['done']")" -lt "$TOTAL" ] || fail "the campaign ended before the coordinator restart"
docker kill "$run-coordinator" >/dev/null
say "killed the coordinator (SIGKILL) with $(echo "$s" | field "s['done']") of $TOTAL jobs done"
sleep 2
start_coordinator
say "coordinator restarted"

# 4. An online backup while the workers submit: verified, restored into a new directory and
# served by a second coordinator, whose status must be the backup's single point in time.
mkdir -m 0777 "$work/backup"
backup_mount=(-v "$work/backup:/backup")
docker run --rm --network "$network" "${secrets_mount[@]}" "${coordinator_url[@]}" $(as_role admin) \
    "${backup_mount[@]}" "$image" backup --out /backup/online.pgbak --json > "$work/backup.json"
docker run --rm "${backup_mount[@]}" "$image" verify-backup /backup/online.pgbak --json \
    > "$work/verified.json"
cmp -s "$work/backup.json" "$work/verified.json" || fail "verify-backup read another backup than was taken"
if docker run --rm "${backup_mount[@]}" "$image" restore /backup/online.pgbak --db /backup >/dev/null 2>&1; then
    fail "a restore into a non-empty directory was allowed"
fi
docker run --rm "${backup_mount[@]}" "$image" restore /backup/online.pgbak --db /backup/restored \
    --json > "$work/restored.json"
docker run -d --name "$run-restored" --network "$network" --network-alias restored \
    "${backup_mount[@]}" "${secrets_mount[@]}" --read-only --cap-drop ALL "$image" coordinator \
    --listen 0.0.0.0:7878 --db /backup/restored \
    --admin-token-file /run/secrets/pentagrid/admin.token \
    --read-token-file /run/secrets/pentagrid/read.token >/dev/null
restored_status() {
    docker run --rm --network "$network" "${secrets_mount[@]}" \
        -e PENTAGRID_COORDINATOR=http://restored:7878 $(as_role read) "$image" status --json 2>/dev/null
}
while ! restored="$(restored_status)"; do check_time; sleep 0.5; done
backup_check="$(python3 - "$work/backup.json" "$work/restored.json" "$restored" "$TOTAL" "$PLAYOUTS" <<'PY'
import json, sys
taken, restored_summary = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
status, total, playouts = json.loads(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
trees = taken["trees"]
errors = []
if restored_summary != taken:
    errors.append("the restore read another backup than was taken")
if status["done"] != trees["results"]:
    errors.append(f"restored: {status['done']} jobs done, the backup holds {trees['results']} results")
if status["games"] != trees["games"]:
    errors.append(f"restored: {status['games']} games, the backup holds {trees['games']}")
if status["playouts"] % playouts:
    errors.append(f"restored: {status['playouts']} playouts, not whole analyses of {playouts}")
jobs = sum(status[k] for k in ("queued", "leased", "done", "failed", "cancelled"))
if jobs != total:
    errors.append(f"restored: {jobs} jobs, the campaign queued {total}")
if errors:
    print("; ".join(errors))
    sys.exit(1)
print(f"backup of {taken['records']} records ({taken['bytes']} bytes) taken under load restored: "
      f"{status['done']} done = {trees['results']} results, {status['games']} games")
PY
)" || fail "$backup_check"
docker rm -f "$run-restored" >/dev/null
say "$backup_check"

wait_for "every job" "s['done'] + s['failed'] + s['cancelled'] >= $TOTAL and s['leased'] == 0"
final="$(status)"
say "all $TOTAL jobs finished"
for w in w2 w3; do docker stop -t 30 "$run-$w" >/dev/null; done
# `sed` reads the whole log: `head` would exit early and fail the pipeline with SIGPIPE.
match_id="$(docker logs "$run-match" 2>/dev/null | sed -n 1p | field "s['match_id']")"
match="$(pg_as read match show "$match_id" --games --json)"
# The image's HEALTHCHECK (every 10 s) reports the restarted coordinator healthy.
health=""
while [ "$health" != healthy ]; do
    check_time
    health="$(docker inspect --format '{{.State.Health.Status}}' "$run-coordinator")"
    [ "$health" = healthy ] || sleep 1
done

# The checks.
summary="$(python3 - "$work" "$final" "$match" "$health" "$ANALYSES" "$PLAYOUTS" "$GAMES" "$PAIRS" <<'PY'
import collections, json, os, sys
work, final, match, health = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
analyses, playouts, games, pairs = map(int, sys.argv[5:9])
def ids(name):
    return [int(i) for i in open(os.path.join(work, name)).read().split(":", 1)[1].split()]
analysis_jobs, selfplay_jobs = set(ids("analyses")), set(ids("selfplay"))
assert len(analysis_jobs) == analyses and len(selfplay_jobs) == games
applied, acked = collections.Counter(), set()
for worker in ("w1", "w2", "w3"):
    path = os.path.join(work, "acks", worker)
    for line in open(path).read().splitlines() if os.path.exists(path) else []:
        result_id, job, how = line.split(" ")
        acked.add(int(job))
        if how == "applied":
            applied[int(job)] += 1
errors = []
def check(ok, what):
    if not ok:
        errors.append(what)
check(final["done"] == analyses + games + pairs and final["failed"] == 0 and final["cancelled"] == 0
      and final.get("quarantined", 0) == 0,
      f"jobs: {final['done']} done, {final['failed']} failed, {final['cancelled']} cancelled")
check(all(n == 1 for n in applied.values()), f"applied twice: {[j for j, n in applied.items() if n > 1]}")
check(analysis_jobs | selfplay_jobs <= acked, f"never acknowledged: {sorted((analysis_jobs | selfplay_jobs) - acked)}")
check(len(acked) == final["done"], f"{len(acked)} jobs acknowledged, {final['done']} done")
acked_playouts = playouts * len(analysis_jobs & set(applied))
check(final["playouts"] == acked_playouts == analyses * playouts,
      f"stored playouts {final['playouts']}, acknowledged {acked_playouts}, campaign {analyses * playouts}")
acked_games = len(selfplay_jobs & set(applied))
check(final["games"] == acked_games == games, f"stored games {final['games']}, acknowledged {acked_games}")
per_pair = collections.Counter(g["pair"] for g in match.get("games", []))
check(match["state"] == "complete" and match["pairs_done"] == pairs
      and per_pair == {p: 2 for p in range(pairs)}
      and sum(match["pentanomial"]) == pairs
      and match["wins"] + match["draws"] + match["losses"] == 2 * pairs,
      f"match: {match['state']}, {match['pairs_done']} pairs, games per pair {dict(per_pair)}")
check(health == "healthy", f"docker health status {health}")
if errors:
    print("; ".join(errors))
    sys.exit(1)
print(f"{final['done']} jobs exactly once ({analyses} analyses, {games} games, {pairs} pairs), "
      f"{final['playouts']} playouts = acknowledged, match {pairs}/{pairs} pairs")
PY
)" || fail "$summary"
say "checks passed"
echo "deploy/test.sh: PASSED: coordinator + 3 workers; worker killed, worker partitioned $((3 * LEASE + 4))s > lease ${LEASE}s (late result answered), coordinator killed and restarted; $backup_check; $summary; $((SECONDS - started))s"
