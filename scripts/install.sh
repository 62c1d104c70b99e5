#!/usr/bin/env bash
# make install: file a provider binary in a Terraform filesystem mirror
# (unpacked layout), so `terraform init` finds it without a registry.
#
#   scripts/install.sh BINARY MIRROR VERSION
#
# MIRROR ~/.terraform.d/plugins is one Terraform searches by itself; any other
# folder needs a CLI config with
#   provider_installation { filesystem_mirror { path = "MIRROR" } }
set -euo pipefail

bin=$1 mirror=$2 version=$3
[ -x "$bin" ] || { echo "install: $bin is missing: run make build" >&2; exit 1; }
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	{ echo "install: version $version is not MAJOR.MINOR.PATCH[-PRERELEASE]" >&2; exit 1; }

platform=$(go env GOOS)_$(go env GOARCH)
dir=$mirror/registry.terraform.io/hpcstorage/hpcstorage/$version/$platform
mkdir -p "$dir"
# One binary per version folder: Terraform runs the first terraform-provider-*.
rm -f "$dir"/terraform-provider-hpcstorage*
install -m 0755 "$bin" "$dir/terraform-provider-hpcstorage_v$version"
echo "installed $("$bin" -version | cut -d' ' -f2) as hpcstorage/hpcstorage $version ($platform) in $dir"
