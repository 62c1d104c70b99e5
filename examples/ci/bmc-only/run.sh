#!/usr/bin/env bash
# BMC-only work in CI: the mock BMCs and arrays of a design (no nodes) and
# your root module (this folder) configured through the provider's
# environment fallbacks (HPCSTORAGE_<ENDPOINT>_URL, _USERNAME, _PASSWORD).
# Needs hpcstorage-lab, terraform and jq on PATH.
set -euo pipefail
cd "$(dirname "$0")"

hpcstorage-lab serve-redfish --design r2 --ca-file ca.pem >endpoints.json &
lab=$!
trap 'kill $lab; wait $lab || true' EXIT
until [ -s endpoints.json ]; do sleep 0.2; done

eval "$(jq -r '.endpoints[] | (.name | ascii_upcase | gsub("[^A-Z0-9]+"; "_")) as $n |
  "export HPCSTORAGE_\($n)_URL=\(.url | @sh) HPCSTORAGE_\($n)_USERNAME=\(.username | @sh) HPCSTORAGE_\($n)_PASSWORD=\(.password | @sh)"' endpoints.json)"
export HPCSTORAGE_CA_CERTIFICATE=$PWD/ca.pem

terraform init
terraform apply -auto-approve
terraform plan -detailed-exitcode
