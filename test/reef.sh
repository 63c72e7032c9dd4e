#!/usr/bin/env bash
# reef.sh ROOT: make ROOT a Debian 13 (trixie) root file system with Ceph
# 18.2 (Reef) daemons, tools and client headers, for test clusters of that
# release and builds against its libraries:
#
#   RADOSCP_CEPH_ROOT=ROOT test/cluster.sh start --fs
#   test/inroot.sh ROOT go build -tags reef ./cmd/radoscp
#
# The first runs the cluster's daemons from ROOT under chroot (cluster.sh),
# while the host's clients (Ceph 16.2's libraries, radoscp, ceph-fuse, the
# ceph CLI) talk to it: mixed releases, as during an upgrade. The second
# builds and runs radoscp (and its tests) inside ROOT, against Reef's
# librados and libcephfs. A root already made is kept (the mark
# ROOT/.radoscp-reef says it is complete, and packages added to the list
# below since are installed), so a machine pays for it once: about 3
# minutes and 1 GB. Needs root and Debian's archive.
set -euo pipefail

root=${1:?usage: test/reef.sh ROOT}
. "$(dirname "${BASH_SOURCE[0]}")/rootmounts.sh"

# Daemons and the ceph CLI for the cluster; headers, a C++ compiler and
# git (go build stamps the commit) to build radoscp; ceph-fuse and the
# tools the end-to-end tests check copies with (deps.sh has the host's).
packages=(
	ceph-mon ceph-osd ceph-mgr ceph-mds ceph-common ceph-fuse
	librados-dev libradospp-dev libcephfs-dev libradosstriper-dev
	g++ git rsync attr acl
)

installed() {
	[[ -f $root/.radoscp-reef ]] || return 1
	local n
	n=$(chroot "$root" dpkg-query -W -f='${Status}\n' "${packages[@]}" 2>/dev/null | grep -c '^install ok installed$' || true)
	((n == ${#packages[@]}))
}
installed && exit 0

command -v debootstrap >/dev/null || {
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}
mkdir -p "$root"
# Bookworm's debootstrap and keyring know trixie.
[[ -x $root/usr/bin/apt-get ]] || debootstrap --variant=minbase trixie "$root" >/dev/null
# No package may start a daemon inside the root.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
root_bind "$root"
trap 'root_unbind "$root"' EXIT
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" apt-get update -qq
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"${packages[@]}" >/dev/null
chroot "$root" apt-get clean
# Trixie's python3-bcrypt (PyO3) refuses to load in the mgr's
# sub-interpreters, which fails every mgr module, volumes included;
# mgr_util imports it at the top only for the dashboard's password hash.
util=$root/usr/share/ceph/mgr/mgr_util.py
if grep -q '^import bcrypt$' "$util"; then
	sed -i -e '/^import bcrypt$/d' -e '/^def password_hash(/a\    import bcrypt' "$util"
fi
grep -q '^\s*import bcrypt$' "$util" || { echo "reef.sh: could not move bcrypt's import in $util" >&2; exit 1; }
touch "$root/.radoscp-reef"
