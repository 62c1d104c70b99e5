#!/usr/bin/env bash
# The README's `make demo` as a fresh machine runs it: a clean clone of this
# commit, in a private mount namespace (unshare) where fio, pacemaker's
# command-line tools, sshd and apt-get are hidden (/dev/null bound over
# them: nothing on this host is changed or removed), so the demo finds what
# a fresh machine lacks and cannot install it. It must still succeed, say
# what it skipped and why, end with an empty plan, and leave no process
# behind: processes running from the clone or the demo's temporary folder
# are counted before and right after it (session keepers, the lab, agents).
#
#   scripts/fresh-demo.sh    (.ci/run runs it after make test)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${FRESH_DEMO_INSIDE:-}" != 1 ]; then
	# Root may unshare a mount namespace; others need a user namespace too.
	flags=-m
	[ "$(id -u)" = 0 ] || flags=-rm
	exec env FRESH_DEMO_INSIDE=1 unshare $flags --propagation private "$0" "$@"
fi

hide() {
	local p
	for p in "$@"; do
		[ -e "$p" ] && mount --bind /dev/null "$p"
	done
	return 0
}
hide /usr/bin/fio /usr/local/bin/fio /usr/sbin/sshd /usr/bin/apt-get /usr/bin/apt
for t in cibadmin crm_attribute crm_diff crm_error crm_failcount crm_mon crm_node crm_resource crm_rule \
	crm_shadow crm_simulate crm_standby crm_ticket crm_verify crmadmin attrd_updater stonith_admin iso8601; do
	hide "/usr/sbin/$t"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hpcstorage-fresh.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tmp"

# What the demo sees: each hidden tool missing, and no way to install.
missing=$("$root/scripts/deps.sh" missing test demo-r1 | tr '\n' ' ')
for p in fio pacemaker-cli-utils openssh-server; do
	[[ " $missing" == *" $p "* ]] || { echo "fresh-demo: $p is not hidden (missing: $missing)" >&2; exit 1; }
done
echo "fresh-demo: hidden as on a fresh machine: $missing(and apt-get)"

# demoProcs: processes whose program or working folder is in $tmp.
demoProcs() {
	local d exe cwd
	for d in /proc/[0-9]*; do
		exe=$(readlink "$d/exe" 2>/dev/null) || continue
		cwd=$(readlink "$d/cwd" 2>/dev/null) || true
		if [[ $exe == "$tmp"/* || $cwd == "$tmp"/* ]]; then
			echo "${d#/proc/} $exe"
		fi
	done
}

git clone -q "$root" "$tmp/clone"
git -C "$tmp/clone" checkout -q "$(git -C "$root" rev-parse HEAD)"
before=$(demoProcs | wc -l)

set +e
(cd "$tmp/clone" && TMPDIR=$tmp/tmp make demo) >"$tmp/demo.log" 2>&1
code=$?
set -e
after=$(demoProcs)
echo "fresh-demo: make demo exit $code; processes from the clone or its temporary folder: $before before, $(printf '%s' "$after" | grep -c . || true) right after"
fail=0
if [ $code -ne 0 ]; then
	tail -40 "$tmp/demo.log" >&2
	fail=1
fi
for want in "the R1 validation run is skipped: the lab runs the real fio, which is not installed" \
	"R1 runs without HA: the lab's clusters run pacemaker's own tools, which are not installed" \
	"plan -detailed-exitcode: 0 (nothing to change)"; do
	grep -qF "$want" "$tmp/demo.log" || { echo "fresh-demo: the demo did not say: $want" >&2; fail=1; }
done
if [ -n "$after" ]; then
	echo "fresh-demo: left running after make demo:" >&2
	echo "$after" >&2
	fail=1
fi
grep -E '^(demo:|Apply complete|plan -detailed)' "$tmp/demo.log" || true
exit $fail
