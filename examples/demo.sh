#!/usr/bin/env bash
# make demo: the R1 BeeGFS design (DESIGN=r3: R3) end to end on this machine, offline.
#
# Starts the lab (mock BMCs and arrays of R1, one SSH node per server and two
# clients), installs the provider from bin/ into a filesystem mirror in the
# work folder (as `make install` does into ~/.terraform.d/plugins), runs
# `terraform init` (offline: a generated CLI config that names only that
# mirror; your ~/.terraformrc is not read) and applies examples/r1, prints what
# each node now has and the array drawers, shows that a second plan is
# empty, and stops the lab. R1 ends with a small validation run: the R1
# paper's presets (r1-seq, r1-random) with the real fio on the lab's two
# clients at tiny sizes, remounting the clients and dropping their caches
# before every phase as the paper does; it prints each run's table (peak
# beside the paper's figure, with the ratio) and where the SVG charts are
# (DEMO_REPORTS, default $TMPDIR/hpcstorage-demo-reports: kept after the
# demo).
#
# DESIGN=r3 (make demo DESIGN=r3) runs examples/r3 instead: the base BeeGFS
# building block first, then blocks 2 and 3 appended (a plan of adds only),
# each carving its EF600 over SANtricity; it prints the arrays' layout and
# volumes where R1 prints the drawers.
#
# DESIGN=r2 runs examples/r2: the NFS-HA pair on one ME4084 (multipath,
# HA-LVM, XFS, NFS, pacemaker fenced through the BMCs); it prints the
# cluster's resources and where each runs.
# DESIGN=r5 runs examples/r5: the Spectrum Scale cluster, NSDs and 8 MiB
# scatter file system on two ME4084s (the lab's mm simulators), prints the
# NSD stanzas and the mmcrfs run, then expands the file system in place
# with both arrays' ME484s (one mmadddisk with exactly the new NSDs).
# DESIGN=r4 runs examples/r4: the Ceph all-flash RBD cluster (cephadm, 3
# monitors, 88 OSDs on 4 nodes' NVMe, a size-2 pool, 200 images mapped 20
# per client on 10 clients).
#
# Needs: bin/ from `make build`, and Terraform (>= 1.11) or OpenTofu
# (>= 1.11) on PATH or in $TERRAFORM (TERRAFORM=tofu); INSTALL_VERSION (from
# make) is the version the provider is filed under. The Debian packages the
# design's lab runs for real (scripts/deps.sh: fio for R1's validation,
# pacemaker's tools for the R1-R3 clusters) are installed first when
# missing, as .ci/run installs the tests' (root or sudo -n; DEMO_INSTALL=0
# never installs). Where they cannot be: R1 runs without its validation, and
# without HA when pacemaker's tools are missing, saying so; R2 and R3 stop.
# DEMO_KEEP=1 keeps the work folder (state, lab roots).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$root/bin}
tf=${TERRAFORM:-terraform}
design=${DESIGN:-r1}
case $design in
r1 | r2 | r3 | r4 | r5) ;;
*) echo "demo: DESIGN=$design: the demo runs r1 (default), r2, r3, r4 or r5" >&2; exit 1 ;;
esac

for b in terraform-provider-hpcstorage hpcstorage-lab; do
	[ -x "$bin/$b" ] || { echo "demo: $bin/$b is missing: run make build first" >&2; exit 1; }
done
command -v "$tf" >/dev/null || { echo "demo: $tf not found: install Terraform or OpenTofu (>= 1.11), or set TERRAFORM" >&2; exit 1; }
tfname=$(basename "$tf")

# The real tools the design's lab runs (one list with .ci/run's).
deps() { "$root/scripts/deps.sh" "$@" "demo-$design"; }
if [ -n "$(deps missing)" ] && [ "${DEMO_INSTALL:-1}" != 0 ]; then
	deps install || true
fi
validation=1 ha=1
for pkg in $(deps missing); do
	case $design/$pkg in
	r1/fio)
		validation=0
		echo "demo: the R1 validation run is skipped: the lab runs the real fio, which is not installed (apt-get install fio)"
		;;
	r1/pacemaker-cli-utils)
		ha=0
		echo "demo: R1 runs without HA: the lab's clusters run pacemaker's own tools, which are not installed (apt-get install pacemaker-cli-utils)"
		;;
	*)
		echo "demo: DESIGN=$design needs $pkg, which is not installed and could not be (run as root, or: sudo apt-get install $pkg)" >&2
		exit 1
		;;
	esac
done
version=${INSTALL_VERSION:-$(cd "$root" && go run ./internal/version/gitversion -install CHANGELOG.md)}

work=$(mktemp -d "${TMPDIR:-/tmp}/hpcstorage-demo.XXXXXX")
lab=$work/lab
cleanup() {
	"$bin/hpcstorage-lab" down --dir "$lab" >/dev/null 2>&1 || true
	if [ "${DEMO_KEEP:-0}" = 1 ]; then
		echo "demo: kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

section() { printf '\n=== %s\n' "$*"; }

if [ "$design" = r3 ]; then
	section "lab: R3 (3 building blocks of 2 file nodes, one EF600 each) and a client"
	"$bin/hpcstorage-lab" up --design r3 --dir "$lab" --clients 1 --detach
elif [ "$design" = r2 ]; then
	section "lab: R2 (2 NFS servers, each cabled twice to one ME4084)"
	"$bin/hpcstorage-lab" up --design r2 --dir "$lab" --detach
elif [ "$design" = r5 ]; then
	section "lab: R5 (management, NSD pair, 2 gateways, 4 x (ME4084 + ME484), ME4024)"
	"$bin/hpcstorage-lab" up --design r5 --dir "$lab" --detach
elif [ "$design" = r4 ]; then
	section "lab: R4 (3 monitor nodes, 4 OSD nodes with 22 NVMe each) and 10 clients"
	"$bin/hpcstorage-lab" up --design r4 --dir "$lab" --clients 10 --detach
else
	section "lab: R1 (1 management, 2 metadata, 2 storage servers, ME4024, 4 x ME4084) and 2 clients"
	"$bin/hpcstorage-lab" up --design r1 --dir "$lab" --clients 2 --detach
fi

# The provider from bin/ in a mirror, the way a site installs it: no registry,
# no network, no development overrides.
"$root/scripts/install.sh" "$bin/terraform-provider-hpcstorage" "$work/mirror" "$version" >/dev/null
# Both registries' host names: hpcstorage/hpcstorage is registry.opentofu.org's to OpenTofu.
cat >"$work/demo.tfrc" <<EOF
provider_installation {
  filesystem_mirror {
    path    = "$work/mirror"
    include = ["registry.terraform.io/hpcstorage/hpcstorage", "registry.opentofu.org/hpcstorage/hpcstorage"]
  }
}
EOF
export TF_CLI_CONFIG_FILE=$work/demo.tfrc CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1 TF_INPUT=0
# The endpoints' passwords, as a CI job gets its secrets: environment only.
set -a
. "$lab/lab.env"
set +a

# A copy of the examples, so no state lands in the source tree.
mkdir -p "$work/examples"
cp -R "$root/examples/$design" "$root/examples/modules" "$work/examples/"
cfg=$work/examples/$design
ln -s "$lab/lab.auto.tfvars.json" "$cfg/lab.auto.tfvars.json"
if [ "$design" = r1 ] && [ $ha = 0 ]; then
	echo '{"ha": false}' >"$cfg/ha.auto.tfvars.json"
fi
if [ "$design" = r1 ] && [ $validation = 1 ]; then
	# The validation at lab sizes: fio (real in the lab), a few threads, 4 MiB
	# per thread; the presets' phases, paper figures, cache drops, remounts.
	reports=${DEMO_REPORTS:-${TMPDIR:-/tmp}/hpcstorage-demo-reports}
	mkdir -p "$reports"
	reports=$(cd "$reports" && pwd)
	cat >"$cfg/validation.auto.tfvars.json" <<EOF
{"validation": {"report_dir": "$reports", "tool": "fio", "seq_threads": [1, 2, 4], "random_threads": [2, 4],
 "file_size_bytes": 4194304, "iodepth": 4}}
EOF
fi

quiet() { grep -v -e '^[│╷╵]\s*$' || true; }

section "$tfname init (hpcstorage/hpcstorage $version from the mirror)"
if ! "$tf" -chdir="$cfg" init -no-color >"$work/init.log" 2>&1; then
	echo "demo: $tfname init failed:" >&2
	tail -40 "$work/init.log" >&2
	exit 1
fi
grep -E 'Installed hpcstorage/hpcstorage|(Terraform|OpenTofu) has been successfully initialized' "$work/init.log"
grep -q 'hpcstorage/hpcstorage' "$cfg/.terraform.lock.hcl" && echo "wrote .terraform.lock.hcl"

if [ "$design" = r3 ]; then
	# Scale-out as a site grows: the base block alone, then the apply below
	# appends blocks 2 and 3 (its plan only adds).
	section "terraform apply examples/r3 with the base block only (blocks = [\"base\"])"
	if ! "$tf" -chdir="$cfg" apply -auto-approve -compact-warnings -no-color -var 'blocks=["base"]' >"$work/apply-base.log" 2>&1; then
		echo "demo: terraform apply of the base block failed:" >&2
		quiet <"$work/apply-base.log" | tail -40 >&2
		exit 1
	fi
	grep -E -e '^Plan:' -e '^Apply complete' "$work/apply-base.log"
fi
section "$tfname apply examples/$design"
start=$(date +%s)
"$tf" -chdir="$cfg" apply -auto-approve -compact-warnings -no-color >"$work/apply.log" 2>&1 &
apply=$!
# Progress every 5 s: resources done out of the plan's count.
while kill -0 "$apply" 2>/dev/null; do
	sleep 5
	kill -0 "$apply" 2>/dev/null || break
	total=$(grep -oE '^Plan: [0-9]+' "$work/apply.log" | grep -oE '[0-9]+' || true)
	printf '  %3d s: %d of %s resources done\n' $(($(date +%s) - start)) \
		"$(grep -cE ': (Creation|Modifications) complete' "$work/apply.log" || true)" "${total:-?}"
done
if ! wait "$apply"; then
	echo "demo: terraform apply failed:" >&2
	quiet <"$work/apply.log" | tail -40 >&2
	exit 1
fi
grep -E -e '^Plan:' -e '^Apply complete' "$work/apply.log"
echo "applied in $(($(date +%s) - start)) s"

if [ "$design" = r4 ]; then
	section "the Ceph cluster: OSDs, and each client's mapped images"
	echo "OSDs: $("$tf" -chdir="$cfg" output -raw osd_count)"
	if command -v jq >/dev/null; then
		"$tf" -chdir="$cfg" output -json mapped | jq -r 'to_entries[] | "\(.key): \(.value | length) images mapped"'
	else
		"$tf" -chdir="$cfg" output mapped
	fi
else
section "what the BMCs now say (hpcstorage_server: powered on, inventory read back)"
"$tf" -chdir="$cfg" output -raw bmc_summary && echo

section "what each node has now"
"$bin/hpcstorage-lab" status --dir "$lab" --brief
if [ "$design" = r2 ]; then
	cat <<'LEGEND'
  volumes: the ME4084's volumes mapped to the node (each seen twice: two SAS paths, one multipath map)
  formatted: the XFS made once, from nfs1, on the striped logical volume (HA-LVM); the cluster mounts it
  owners: agent owners holding settings on the node (tuning, multipath, HA-LVM, NFS server, cluster)
LEGEND
else
	cat <<'LEGEND'
  volumes: array volumes cabled to the node (block devices with a WWN)
  formatted, mounted: BeeGFS targets the provider formatted once (on their
    preferred node) and mounted through fstab (none with HA: the cluster mounts them)
  owners: agent owners holding settings on the node (node_config, each BeeGFS resource, the cluster)
  units: systemd units running or enabled (with HA the BeeGFS units are the cluster's: see below)
LEGEND
fi

fi
if { [ "$design" = r1 ] && [ $ha = 1 ]; } || [ "$design" = r3 ]; then
	section "BeeGFS under pacemaker: where each service group runs (crm_mon, read back)"
	"$tf" -chdir="$cfg" output -raw beegfs_groups && echo
fi
if [ "$design" = r4 ]; then
	:
elif [ "$design" = r3 ]; then
	section "EF600 layouts: bays by disk group, volumes mapped to both file nodes of the block"
	"$tf" -chdir="$cfg" output -raw array_layout && echo
elif [ "$design" = r2 ]; then
	section "the ME4084 (NN: disk group, S: global spare)"
	"$tf" -chdir="$cfg" output -raw drawer_diagram

	section "the cluster: R2's group in start order, the fence devices, where each runs"
	"$tf" -chdir="$cfg" output -raw cluster_summary && echo
	cat <<'NOTE'
  The lab's cluster is pacemaker's own cibadmin/crm_diff/crm_mon on one CIB
  shared by both nodes, placed by the real scheduler (crm_simulate); the
  resource agents themselves do not run in the lab.
NOTE
elif [ "$design" = r5 ]; then
	section "Spectrum Scale: NSD stanzas (primaries alternate) and the mmcrfs run"
	"$tf" -chdir="$cfg" output -raw nsds
	"$tf" -chdir="$cfg" output -raw mmcrfs_command && echo

	section "capacity expansion in place: the ME484s of both arrays (me484_count = 2)"
	echo '{"me484_count": 2}' >"$cfg/expansion.auto.tfvars.json"
	"$tf" -chdir="$cfg" apply -auto-approve -compact-warnings -no-color >"$work/expand.log" 2>&1 || {
		echo "demo: the expansion apply failed:" >&2
		quiet <"$work/expand.log" | tail -40 >&2
		exit 1
	}
	grep -E -e '^Plan:' -e '^Apply complete' "$work/expand.log"
	echo "NSDs added with one mmadddisk:"
	"$tf" -chdir="$cfg" output -json added_disks
else
	section "one storage target and one metadata target"
	"$tf" -chdir="$cfg" output -raw first_targets && echo

	section "every array's layout (NN: disk group, S: global spare)"
	"$tf" -chdir="$cfg" output -raw all_drawers

	if [ $validation = 1 ]; then
	section "validation: the R1 paper's runs (r1-seq, r1-random) with fio on the 2 lab clients"
	"$tf" -chdir="$cfg" output -raw validation_report
	cat <<'NOTE'
  The lab's figures are fio on a local disk (files inside each client's lab
  folder, a few MiB): they say nothing about the storage, and the ratios to
  the paper only show that the run, its parsing and its comparison work. On
  the real system, set validation without overrides for the paper's runs.
NOTE
	fi
fi

section "$tfname plan again (expect no changes)"
set +e
"$tf" -chdir="$cfg" plan -detailed-exitcode -compact-warnings -no-color 2>&1 | quiet | grep -E -e 'No changes' -e 'Plan:' -e 'Error'
code=${PIPESTATUS[0]}
set -e
if [ "$code" -ne 0 ]; then
	echo "demo: the second plan is not empty (exit $code)" >&2
	exit 1
fi
echo "plan -detailed-exitcode: 0 (nothing to change)"

section "stopping the lab"
"$bin/hpcstorage-lab" down --dir "$lab"
echo
echo "The agent-only demo (no Terraform) is examples/agent/demo.sh."
