#!/usr/bin/env bash
# What `make demo` runs for now: the agent converges a fake R1 BeeGFS
# storage server (a scratch folder laid out like a node: proc, sys, etc)
# to the R1 tuning profile, shows that a second run changes nothing, then
# puts the node back. Needs bash and the binaries from `make build`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
lab="${LAB:-$repo/bin/hpcstorage-lab}"
agent="${AGENT:-$repo/bin/hpcstorage-agent}"
spec="$here/r1-storage-server.yaml"

for b in "$lab" "$agent"; do
	if [[ ! -x "$b" ]]; then
		echo "demo: $b is missing; run 'make build' first" >&2
		exit 1
	fi
done

scratch="$(mktemp -d "${TMPDIR:-/tmp}/hpcstorage-demo.XXXXXX")"
pristine="$(mktemp -d "${TMPDIR:-/tmp}/hpcstorage-demo-ref.XXXXXX")"
trap 'rm -rf "$scratch" "$pristine"' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. a fake storage server: 40 CPUs in 2 NUMA zones, system SSD sda, 4 ME4084 volumes sdb-sde"
"$lab" seed-node --dir "$scratch" --profile storage --hostname storage01 --volumes 4
"$lab" seed-node --dir "$pristine" --profile storage --hostname storage01 --volumes 4 >/dev/null

step "2. apply the R1 storage-server profile ($(grep -c '^  - ' "$spec") items), with diffs"
set +e
"$agent" apply -f "$spec" --root "$scratch" --diff --output text
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
	echo "demo: apply failed (exit $rc)" >&2
	exit "$rc"
fi

step "3. what the node now has"
printf 'vm.dirty_ratio          %s\n' "$(cat "$scratch/proc/sys/vm/dirty_ratio")"
printf 'sdb scheduler           %s\n' "$(cat "$scratch/sys/block/sdb/queue/scheduler")"
printf 'sdb nr_requests         %s\n' "$(cat "$scratch/sys/block/sdb/queue/nr_requests")"
printf 'sda nr_requests (SSD)   %s  (not an array volume: left alone)\n' "$(cat "$scratch/sys/block/sda/queue/nr_requests")"
printf 'THP enabled             %s\n' "$(cat "$scratch/sys/kernel/mm/transparent_hugepage/enabled")"
echo "commands the agent would have run on a real node (under --root: recorded, and run by the lab's simulators in the root, never on the host):"
sed 's/^/    /' "$scratch/var/lib/hpcstorage-agent/commands.log"

step "4. apply again: nothing to do"
out="$("$agent" apply -f "$spec" --root "$scratch" --output text)"
echo "$out" | tail -n 1
if ! echo "$out" | tail -n 1 | grep -q ' 0 changed, 0 failed'; then
	echo "demo: the second apply changed something" >&2
	exit 1
fi

step "5. remove --owner r1-storage-tuning: put everything back"
"$agent" remove --owner r1-storage-tuning --root "$scratch" --output text | tail -n 1
if command -v diff >/dev/null 2>&1; then
	if diff -r -q -x hpcstorage-agent "$pristine" "$scratch" >/dev/null; then
		echo "the root is byte-identical to a fresh seed (apart from the agent's state folder)"
	else
		echo "demo: the root differs from a fresh seed after remove:" >&2
		diff -r -q -x hpcstorage-agent "$pristine" "$scratch" >&2 || true
		exit 1
	fi
fi
