#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time and prints one line per target:
#   fuzz/run.sh [SECONDS_PER_TARGET]   (default 60)
# Needs a nightly toolchain, as cargo-fuzz does; installs cargo-fuzz from crates.io when missing.
# A crash leaves its input under fuzz/artifacts/TARGET/; turn it into a regression test.
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
toolchain=${FUZZ_TOOLCHAIN:-nightly}
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
status=0
for target in $(cargo +"$toolchain" fuzz list); do
  log=$(mktemp)
  if cargo +"$toolchain" fuzz run "$target" -- -max_total_time="$seconds" >"$log" 2>&1; then
    verdict=ok
  else
    verdict=CRASH
    status=1
  fi
  runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -n 1 | grep -o '[0-9]*')
  echo "$target: $verdict, ${runs:-?} executions in ${seconds}s"
  [ "$verdict" = ok ] || tail -n 30 "$log"
  rm -f "$log"
done
exit $status
