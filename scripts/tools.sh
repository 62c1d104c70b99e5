#!/usr/bin/env bash
# The Terraform and OpenTofu builds of ../shared/tools (see its README:
# releases after Terraform 1.5 cannot be go-installed), unpacked into .bin/
# once and checked against their sha256 every time.
#
#   scripts/tools.sh NAME   NAME: terraform-1.15.9 or tofu-1.11.14; prints the binary's path
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shared=${HPCSTORAGE_SHARED:-$root/../shared}

# The sums of the unpacked binaries, as ../shared/tools/README.md gives them.
case ${1:-} in
terraform-1.15.9) sum=4a6b491c605318db6ad787ed621403152ad1929c9b956bf83444e7958d76ce2d ;;
tofu-1.11.14) sum=a62cdd51be257c09a68eaca5b73416de5ac7a3b6787cf6f30fad6950cc35939f ;;
*) echo "usage: $0 terraform-1.15.9|tofu-1.11.14" >&2; exit 2 ;;
esac
name=$1
out=$root/.bin/$name
if [ ! -x "$out" ]; then
	xz=$shared/tools/$name-linux-amd64.xz
	[ -f "$xz" ] || { echo "tools: $xz not found (../shared beside the repository)" >&2; exit 1; }
	mkdir -p "$root/.bin"
	xz -dc "$xz" >"$out.tmp"
	chmod +x "$out.tmp"
	mv "$out.tmp" "$out"
fi
got=$(sha256sum "$out" | cut -d' ' -f1)
if [ "$got" != "$sum" ]; then
	echo "tools: $out has sha256 $got, want $sum" >&2
	rm -f "$out"
	exit 1
fi
echo "$out"
