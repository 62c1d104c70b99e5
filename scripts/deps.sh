#!/usr/bin/env bash
# The Debian packages the tests and the demo use, in one list: .ci/run
# installs the test set, make demo the set of its design.
#
#   scripts/deps.sh missing SET...   print the packages of SET not installed here
#   scripts/deps.sh install SET...   install those with apt-get (as root, or with
#                                    sudo that needs no password); exit 1 when
#                                    this user cannot install packages
#
# SET: test (everything make test uses), real (make test-real), demo-r1 ... demo-r5.
set -euo pipefail

# package, the sets that use it, and how to tell it is here (as the code
# that uses it looks).
table() {
	cat <<'EOF'
# OpenSSH server (the transport's real-sshd test), sudo (its non-root path).
openssh-server      test              [ -x /usr/sbin/sshd ]
sudo                test              have sudo
# jq: the BMC-only CI recipe (examples/ci/bmc-only/run.sh).
jq                  test              have jq
# fence-agents: the real fence_redfish against the lab's BMCs.
fence-agents        test              have fence_redfish
# fio: validation runs execute the real fio inside lab clients' roots (the
# lab looks for it in these paths only, not in PATH).
fio                 test,demo-r1      [ -x /usr/bin/fio ] || [ -x /usr/local/bin/fio ] || [ -x /bin/fio ]
# pacemaker-cli-utils (cibadmin, crm_diff, crm_simulate, crm_verify,
# crm_resource): the lab's clusters run pacemaker's own tools on their CIB;
# the tests check generated CIBs with them.
pacemaker-cli-utils test,demo-r1,demo-r2,demo-r3  have crm_simulate
corosync            test              have corosync
# resource-agents: the agents' meta-data.
resource-agents     test              [ -d /usr/lib/ocf/resource.d/heartbeat ]
# lvm2 (lvmconfig) and nfs-common (nfsconf): the HA-LVM and NFS renderers'
# output is read back by the real tools.
lvm2                test              have lvmconfig
nfs-common          test              have nfsconf
# xfsprogs (mkfs.xfs -N): R2's XFS alignment and the lab's mkfs refusals.
xfsprogs            test              have mkfs.xfs
# libxml2-utils (xmllint): the lab's crm_mon XML against pacemaker's schema.
libxml2-utils       test              have xmllint
# python3-ceph-common (Pacific): cephadm specs and OSD device selection
# checked by Ceph's own ServiceSpec and DriveSelection.
python3-ceph-common test              /usr/bin/python3 -c 'import ceph.deployment.drive_selection'
# systemd-container (systemd-nspawn) and debootstrap: the real-node lab
# (hpcstorage-lab up --real, make test-real) builds and boots Debian 12 nodes.
systemd-container   real              have systemd-nspawn
debootstrap         real              have debootstrap
EOF
}

# have NAME: an executable regular file NAME in PATH or the sbin folders
# (as Go's exec.LookPath, which the lab uses, sees it).
have() {
	local d
	for d in ${PATH//:/ } /usr/sbin /sbin; do
		[ -f "$d/$1" ] && [ -x "$d/$1" ] && return 0
	done
	return 1
}
export -f have

missing() {
	local pkg sets check want
	table | while read -r pkg sets check; do
		case $pkg in '' | '#'*) continue ;; esac
		for want in "$@"; do
			if [[ ,$sets, == *,$want,* ]]; then
				bash -c "$check" >/dev/null 2>&1 || echo "$pkg"
				break
			fi
		done
	done
}

# The command that installs packages here, if this user may: root that
# can write dpkg's database (not a user namespace's root), or sudo -n.
installer() {
	command -v apt-get >/dev/null || return 1
	if [ "$(id -u)" = 0 ] && [ -w /var/lib/dpkg ]; then
		echo env
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		echo "sudo -n"
	else
		return 1
	fi
}

[ $# -ge 2 ] || { echo "usage: $0 missing|install SET..." >&2; exit 2; }
cmd=$1
shift
case $cmd in
missing) missing "$@" ;;
install)
	mapfile -t need < <(missing "$@")
	[ ${#need[@]} -gt 0 ] || exit 0
	if ! run=$(installer); then
		echo "deps: ${need[*]} missing, and this user cannot install packages (needs apt-get, and root or sudo without a password)" >&2
		exit 1
	fi
	echo "deps: installing ${need[*]} (apt-get)"
	$run DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$run DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
	;;
*) echo "usage: $0 missing|install SET..." >&2; exit 2 ;;
esac
