#!/usr/bin/env bash
# make install: file a provider binary in a Terraform filesystem mirror
# (unpacked layout), so `terraform init` finds it without a registry.
#
#   scripts/install.sh BINARY MIRROR VERSION
#
# MIRROR ~/.terraform.d/plugins is one Terraform and OpenTofu search by
# themselves; any other folder needs a CLI config with
#   provider_installation { filesystem_mirror { path = "MIRROR" } }
set -euo pipefail

bin=$1 mirror=$2 version=$3
[ -x "$bin" ] || { echo "install: $bin is missing: run make build" >&2; exit 1; }
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	{ echo "install: version $version is not MAJOR.MINOR.PATCH[-PRERELEASE]" >&2; exit 1; }

platform=$(go env GOOS)_$(go env GOARCH)
# Filed under both registries' host names: the source hpcstorage/hpcstorage
# means registry.terraform.io to Terraform and registry.opentofu.org to
# OpenTofu, and each looks only under its own.
first=
for host in registry.terraform.io registry.opentofu.org; do
	dir=$mirror/$host/hpcstorage/hpcstorage/$version/$platform
	mkdir -p "$dir"
	# One binary per version folder: Terraform runs the first terraform-provider-*.
	rm -f "$dir"/terraform-provider-hpcstorage*
	dest=$dir/terraform-provider-hpcstorage_v$version
	if [ -z "$first" ]; then
		install -m 0755 "$bin" "$dest"
		first=$dest
	else
		ln "$first" "$dest" 2>/dev/null || install -m 0755 "$bin" "$dest"
	fi
	echo "installed $("$bin" -version | cut -d' ' -f2) as hpcstorage/hpcstorage $version ($platform) in $dir"
done
