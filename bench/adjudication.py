#!/usr/bin/env python3
"""Exact adjudication: the time it saves and the results it keeps (BENCHMARKS.md).

Plays one match played out and then the same match under each adjudication given, each on a
fresh embedded cluster (`pentagrid match --local --workers 2`: two workers of one thread each),
and compares them game by game: a game is matched with the played-out game of the same pair and
colours; "same" counts the adjudicated games whose result is the played-out game's. Under a
playout budget the players are reproducible (same seed, same games), so an adjudicated game must
be a prefix of its played-out game, and the script checks it; under a time limit they are not,
and `--repeat` plays the played-out match twice to show how often results differ anyway.

Times are the `pentagrid` process's wall clock and CPU (user + system, all workers together,
the coordinator's small share included).

    bench/adjudication.py --a uct:playouts=3000 --b uct:playouts=1500 --pairs 50 --seed 1 \\
        exact exact:stones=12 exact:budget=1

Environment: PENTAGRID (default target/debug/pentagrid). Standard library only.
"""

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time


def play(pentagrid, args, adjudicate, workdir, name):
    """Plays the match; returns (games keyed by pair and black player, wall s, CPU s)."""
    db = os.path.join(workdir, name)
    command = [
        pentagrid, "match", "--local", "--db", db, "--workers", "2",
        "--a", args.a, "--b", args.b, "--pairs", str(args.pairs), "--seed", str(args.seed),
        "--json",
    ]
    if args.time:
        command += ["--time", args.time]
    if adjudicate:
        command += ["--adjudicate", adjudicate]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    match_id = json.loads(out.splitlines()[0])["match_id"]
    shown = subprocess.run(
        [pentagrid, "match", "show", str(match_id), "--local", "--db", db, "--games", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    games = {(g["pair"], g["black"]): g for g in json.loads(shown)["games"]}
    return games, wall, cpu


def compare(played, judged, reproducible):
    """Same results, adjudicated games, plies saved and prefix mismatches of `judged`."""
    same = adjudicated = saved = mismatches = 0
    sources = {}
    for key, game in judged.items():
        out = played[key]
        same += game["result"] == out["result"]
        if game["adjudicated"]:
            adjudicated += 1
            sources[game["adjudicated"]] = sources.get(game["adjudicated"], 0) + 1
        saved += len(out["moves"]) - len(game["moves"])
        if reproducible and out["moves"][: len(game["moves"])] != game["moves"]:
            mismatches += 1
    return same, adjudicated, saved, mismatches, sources


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True)
    parser.add_argument("--b", required=True)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time", help="a time limit, e.g. move:0.2 (games not reproducible)")
    parser.add_argument("--repeat", action="store_true", help="play the played-out match twice")
    parser.add_argument("adjudications", nargs="+", help="e.g. exact exact:stones=12")
    args = parser.parse_args()
    pentagrid = os.environ.get("PENTAGRID", "target/debug/pentagrid")
    reproducible = args.time is None
    print(f"# {args.a} vs {args.b}, {args.pairs} pairs, seed {args.seed}, "
          f"time {args.time or '-'}; load average {os.getloadavg()[0]:.1f}")
    print("| adjudication | games | same result | adjudicated (by) | plies saved "
          "| wall | CPU | CPU saved |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as workdir:
        played, wall0, cpu0 = play(pentagrid, args, None, workdir, "played")
        total = sum(len(g["moves"]) for g in played.values())
        print(f"| played out | {len(played)} | – | – | – ({total} plies) "
              f"| {wall0:.1f} s | {cpu0:.1f} s | – |", flush=True)
        runs = [("played out again", None)] if args.repeat else []
        runs += [(a, a) for a in args.adjudications]
        for run, (label, adjudicate) in enumerate(runs):
            games, wall, cpu = play(pentagrid, args, adjudicate, workdir, f"run{run}")
            same, adjudicated, saved, mismatches, sources = compare(played, games, reproducible)
            by = ", ".join(f"{n} {s}" for s, n in sorted(sources.items()))
            check = f" ({mismatches} not a prefix)" if mismatches else ""
            print(f"| `{label}` | {len(games)} | {same}/{len(games)} "
                  f"({100 * same / len(games):.0f}%){check} | {adjudicated} ({by or '–'}) "
                  f"| {saved} | {wall:.1f} s | {cpu:.1f} s | {100 * (1 - cpu / cpu0):.0f}% |",
                  flush=True)


if __name__ == "__main__":
    main()
