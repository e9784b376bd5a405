#!/usr/bin/env bash
# Clone to healthy, as a newcomer sees it: clones this repository into a temporary folder, runs
# `pnpm install --frozen-lockfile` (fast when the pnpm store is warm) and `pnpm start`, and times each
# step until pnpm start prints that the suite is healthy; then stops it with Ctrl-C and removes the clone.
#
#   scripts/measure-start.sh              # PostgreSQL/Redis as pnpm start finds them (DATABASE_URL, REDIS_URL, local ports)
#   scripts/measure-start.sh --embedded   # PATCHBAY_EMBEDDED_POSTGRES=force PATCHBAY_EMBEDDED_REDIS=force
#
# SOURCE=<path or URL> clones another repository or branch; PATCHBAY_PORT_OFFSET moves the ports.
# Times are wall-clock on this machine: say how loaded it was (uptime is printed) when you quote them.
set -euo pipefail

embedded=false
[ "${1:-}" = "--embedded" ] && embedded=true
source_repo="${SOURCE:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}"
work="$(mktemp -d)"
# As root the embedded PostgreSQL runs as the postgres user, who must be able to enter the clone.
chmod 755 "$work"
clone="$work/patchbay"
start_pid=""
cleanup() {
  if [ -n "$start_pid" ] && kill -0 "$start_pid" 2>/dev/null; then kill -INT -- "-$start_pid" 2>/dev/null || true; sleep 5; fi
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

echo "machine: $(uptime | sed 's/.*load average/load average/') on $(nproc) cores"
t0=$(now)
git clone -q "$source_repo" "$clone"
t1=$(now)
# CPU seconds (user + system, children included) are printed too: on a shared machine they say more than wall time.
(cd "$clone" && /usr/bin/time -o "$work/install.cpu" -f '%U %S' pnpm install --frozen-lockfile >"$work/install.log" 2>&1)
t2=$(now)

if $embedded; then
  export PATCHBAY_EMBEDDED_POSTGRES=force PATCHBAY_EMBEDDED_REDIS=force
  unset DATABASE_URL REDIS_URL
fi
# A process group of its own, so Ctrl-C reaches pnpm, turbo and the suite.
(cd "$clone" && exec setsid /usr/bin/time -o "$work/start.cpu" -f '%U %S' pnpm start >"$work/start.log" 2>&1) &
start_pid=$!
built=""
while :; do
  if [ -z "$built" ] && grep -q '\[patchbay\]' "$work/start.log" 2>/dev/null; then built=$(now); fi
  if grep -q 'Patchbay is running at' "$work/start.log" 2>/dev/null; then break; fi
  if ! kill -0 "$start_pid" 2>/dev/null; then grep -v "^{" "$work/start.log" | tail -40 >&2; echo "pnpm start exited before the suite was healthy" >&2; exit 1; fi
  sleep 0.2
done
t3=$(now)
built="${built:-$t3}"

# Ctrl-C now: the CPU of pnpm start is counted up to here (plus its short shutdown).
kill -INT -- "-$start_pid" 2>/dev/null || true
for _ in $(seq 1 100); do [ -s "$work/start.cpu" ] && break; sleep 0.2; done
start_pid=""
cpu() { tail -1 "$1" 2>/dev/null | awk '{ printf "%.1f", $1 + $2 }'; }

echo "clone:                 $(elapsed "$t0" "$t1") s"
echo "pnpm install:          $(elapsed "$t1" "$t2") s   ($(cpu "$work/install.cpu") CPU s)"
echo "pnpm start, build:     $(elapsed "$t2" "$built") s   ($(grep -Eo 'Cached: +[0-9]+ cached, [0-9]+ total' "$work/start.log" | head -1 || echo 'turbo summary not printed'))"
echo "pnpm start, services:  $(elapsed "$built" "$t3") s"
echo "pnpm start (build + services) CPU: $(cpu "$work/start.cpu") s"
echo "clone to healthy:      $(elapsed "$t0" "$t3") s   (embedded PostgreSQL and Redis: $embedded)"
grep '\[patchbay\]' "$work/start.log" | grep -E 'embedded|Redis:|running' | sed 's/^/  /'
