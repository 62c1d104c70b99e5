#!/usr/bin/env bash
# make versions: every supported CLI against the lab. For each of the
# machine's terraform (or $1), Terraform 1.15.9 and OpenTofu 1.11.14 (from
# ../shared/tools, scripts/tools.sh): the provider from bin/ in a filesystem
# mirror (both registries' host names), examples/r1 and examples/r2 applied
# to their labs and planned again with nothing to change, and the
# data-source examples planned against the R1 lab. Prints one line per CLI
# and check, and the time each took.
#
#   scripts/versions.sh [TERRAFORM]    (make versions; .ci/run runs it after make test)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/bin
for b in terraform-provider-hpcstorage hpcstorage-lab; do
	[ -x "$bin/$b" ] || { echo "versions: $bin/$b is missing: run make build first" >&2; exit 1; }
done
clis=("${1:-$(command -v terraform)}" "$("$root/scripts/tools.sh" terraform-1.15.9)" "$("$root/scripts/tools.sh" tofu-1.11.14)")
version=${INSTALL_VERSION:-$(cd "$root" && go run ./internal/version/gitversion -install CHANGELOG.md)}

work=$(mktemp -d "${TMPDIR:-/tmp}/hpcstorage-versions.XXXXXX")
labs=()
cleanup() {
	for l in "${labs[@]}"; do
		"$bin/hpcstorage-lab" down --dir "$l" >/dev/null 2>&1 || true
	done
	[ "${VERSIONS_KEEP:-0}" = 1 ] && echo "versions: kept $work" || rm -rf "$work"
}
trap cleanup EXIT

"$root/scripts/install.sh" "$bin/terraform-provider-hpcstorage" "$work/mirror" "$version" >/dev/null
cat >"$work/cli.tfrc" <<EOF
provider_installation {
  filesystem_mirror {
    path    = "$work/mirror"
    include = ["registry.terraform.io/hpcstorage/hpcstorage", "registry.opentofu.org/hpcstorage/hpcstorage"]
  }
}
EOF
export TF_CLI_CONFIG_FILE=$work/cli.tfrc CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1 TF_INPUT=0

fail=0
# check NAME LOG CMD...: runs CMD, prints NAME ok/FAILED with its time;
# on failure the log's tail.
check() {
	local name=$1 log=$2 start=$SECONDS
	shift 2
	if "$@" >"$log" 2>&1; then
		printf '  %-44s ok      %3d s\n' "$name" $((SECONDS - start))
	else
		printf '  %-44s FAILED  %3d s (%s)\n' "$name" $((SECONDS - start)) "$log"
		grep -v -e '^[│╷╵]\s*$' "$log" | tail -25 | sed 's/^/    /'
		fail=1
		return 1
	fi
}

# apply_replan CLI DIR: init, apply, then a plan that must find nothing to change.
apply_replan() {
	"$1" -chdir="$2" init -no-color &&
		"$1" -chdir="$2" apply -auto-approve -no-color &&
		"$1" -chdir="$2" plan -detailed-exitcode -no-color
}

# The data-source examples as a user copies them, with the lab's provider
# block beside them (endpoints and SSH from lab.auto.tfvars.json; passwords
# from lab.env in the environment) and the node named as the lab names it.
datasources() {
	local tf=$1 dir=$2 lab=$3 r1=$4 d out host
	host=$(echo 'var.lab.nodes["stor1"].host' | "$tf" -chdir="$r1" console | tr -d '"')
	for d in "$root"/examples/data-sources/*/; do
		out=$dir/$(basename "$d")
		cp -R "$d" "$out"
		sed -i "s/host = \"stor01\"/host = \"$host\"/" "$out"/*.tf
		ln -s "$lab/lab.auto.tfvars.json" "$out/lab.auto.tfvars.json"
		cp "$root/scripts/versions/lab.tf" "$out/lab.tf"
		"$tf" -chdir="$out" init -no-color && "$tf" -chdir="$out" plan -no-color || return 1
	done
}

# Ephemeral and write-only values (scripts/versions/ephemeral.tf) applied on
# the R1 lab's management node: neither the password nor the secret in the
# state or a saved plan, the re-plan empty, a new secret planned as an
# update (through its hash).
ephemeral() {
	local tf=$1 dir=$2 lab=$3 pw secret=versions-secret-0123456789abcdef code
	pw=$(sed -n 's/^HPCSTORAGE_MGMT_BMC_PASSWORD=//p' "$lab/lab.env")
	mkdir -p "$dir"
	cp "$root/scripts/versions/ephemeral.tf" "$dir/main.tf"
	ln -s "$lab/lab.auto.tfvars.json" "$dir/lab.auto.tfvars.json"
	export TF_VAR_bmc_password=$pw TF_VAR_beegfs_secret=$secret
	"$tf" -chdir="$dir" init -no-color &&
		"$tf" -chdir="$dir" apply -auto-approve -no-color &&
		"$tf" -chdir="$dir" plan -detailed-exitcode -no-color -out=replan.tfplan &&
		"$tf" -chdir="$dir" show -json replan.tfplan >"$dir/replan.json" || return 1
	if grep -l -e "$pw" -e "$secret" "$dir/terraform.tfstate" "$dir/replan.tfplan" "$dir/replan.json"; then
		echo "versions: the password or the write-only secret is in the files above" >&2
		return 1
	fi
	export TF_VAR_beegfs_secret=$secret-rotated
	code=0
	"$tf" -chdir="$dir" plan -detailed-exitcode -no-color || code=$?
	[ $code = 2 ] || { echo "versions: a new write-only secret: plan exit $code, want 2 (an update)" >&2; return 1; }
}

for tf in "${clis[@]}"; do
	name=$("$tf" version | sed -n 1p)
	echo "== $name ($tf)"
	t=$work/$(basename "$tf")
	mkdir -p "$t"
	for design in r1 r2; do
		lab=$t/lab-$design
		labs+=("$lab")
		"$bin/hpcstorage-lab" up --design "$design" --dir "$lab" --detach >"$t/lab-$design.log" 2>&1 ||
			{ echo "versions: lab $design did not start:" >&2; cat "$t/lab-$design.log" >&2; exit 1; }
		mkdir -p "$t/examples"
		cp -R "$root/examples/$design" "$t/examples/"
		[ -d "$t/examples/modules" ] || cp -R "$root/examples/modules" "$t/examples/"
		ln -s "$lab/lab.auto.tfvars.json" "$t/examples/$design/lab.auto.tfvars.json"
		(
			set -a
			. "$lab/lab.env"
			set +a
			check "examples/$design: apply, re-plan empty" "$t/$design.log" apply_replan "$tf" "$t/examples/$design"
			if [ $design = r1 ]; then
				mkdir -p "$t/data-sources"
				check "examples/data-sources/*: plan" "$t/data-sources.log" datasources "$tf" "$t/data-sources" "$lab" "$t/examples/r1"
			fi
		) || fail=1
		if [ $design = r1 ]; then
			# No lab.env here: the password comes from an ephemeral variable.
			check "ephemeral variable, write-only attribute" "$t/ephemeral.log" ephemeral "$tf" "$t/ephemeral" "$lab" || fail=1
		fi
		"$bin/hpcstorage-lab" down --dir "$lab" >/dev/null
	done
done
exit $fail
