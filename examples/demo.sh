#!/usr/bin/env bash
# make demo: the R1 BeeGFS design end to end on this machine, offline.
#
# Starts the lab (mock BMCs and arrays of R1, one SSH node per server and two
# clients), applies examples/r1 with the provider from bin/ (a generated CLI
# config with dev_overrides; your ~/.terraformrc is not read), prints what
# each node now has and the array drawers, shows that a second plan is
# empty, and stops the lab.
#
# DESIGN=r3 (make demo DESIGN=r3) runs examples/r3 instead: three BeeGFS
# building blocks, each carving its EF600 over SANtricity; it prints the
# arrays' layout where R1 prints the drawers.
#
# Needs: bin/ from `make build`, and terraform (>= 1.5) or OpenTofu on PATH
# or in $TERRAFORM. DEMO_KEEP=1 keeps the work folder (state, lab roots).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$root/bin}
tf=${TERRAFORM:-terraform}
design=${DESIGN:-r1}
case $design in
r1 | r3) ;;
*) echo "demo: DESIGN=$design: the demo runs r1 (default) or r3" >&2; exit 1 ;;
esac

for b in terraform-provider-hpcstorage hpcstorage-lab; do
	[ -x "$bin/$b" ] || { echo "demo: $bin/$b is missing: run make build first" >&2; exit 1; }
done
command -v "$tf" >/dev/null || { echo "demo: $tf not found: install Terraform or OpenTofu, or set TERRAFORM" >&2; exit 1; }

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
	section "lab: R3 (3 building blocks of 2 file nodes, one EF600 each)"
	"$bin/hpcstorage-lab" up --design r3 --dir "$lab" --detach
else
	section "lab: R1 (1 management, 2 metadata, 2 storage servers, ME4024, 4 x ME4084) and 2 clients"
	"$bin/hpcstorage-lab" up --design r1 --dir "$lab" --clients 2 --detach
fi

# The provider from bin/, without init, registry or network.
cat >"$work/dev.tfrc" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/hpcstorage/hpcstorage" = "$bin"
  }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE=$work/dev.tfrc CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1 TF_INPUT=0

# A copy of the examples, so no state lands in the source tree.
mkdir -p "$work/examples"
cp -R "$root/examples/$design" "$root/examples/modules" "$work/examples/"
cfg=$work/examples/$design
ln -s "$lab/lab.auto.tfvars.json" "$cfg/lab.auto.tfvars.json"

quiet() { grep -v -e 'Provider development overrides are in effect' -e 'The following provider development overrides' \
	-e 'hpcstorage/hpcstorage in ' -e 'to become incompatible with published releases' -e '^[│╷╵]\s*$' || true; }

# Local modules only: `get` links them without asking any registry.
"$tf" -chdir="$cfg" get >/dev/null

section "terraform apply examples/$design"
start=$(date +%s)
if ! "$tf" -chdir="$cfg" apply -auto-approve -compact-warnings -no-color >"$work/apply.log" 2>&1; then
	echo "demo: terraform apply failed:" >&2
	quiet <"$work/apply.log" | tail -40 >&2
	exit 1
fi
grep -E -e '^Plan:' -e '^Apply complete' "$work/apply.log"
echo "applied in $(($(date +%s) - start)) s"

section "what each node has now"
"$bin/hpcstorage-lab" status --dir "$lab" --brief

if [ "$design" = r3 ]; then
	section "EF600 layouts: bays by disk group, volumes mapped to both file nodes of the block"
	"$tf" -chdir="$cfg" output -raw array_layout && echo
else
	section "one storage target and one metadata target"
	"$tf" -chdir="$cfg" output -raw first_targets && echo

	section "ME4084 drawers (S: global spare)"
	"$tf" -chdir="$cfg" output -raw storage_drawers
fi

section "terraform plan again (expect no changes)"
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
