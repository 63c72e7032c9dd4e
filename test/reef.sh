#!/usr/bin/env bash
# reef.sh ROOT: make ROOT a Debian 13 (trixie) root file system with Ceph
# 18.2 (Reef) daemons and tools, for test clusters of that release:
#
#   RADOSCP_CEPH_ROOT=ROOT test/cluster.sh start --fs
#
# runs the cluster's daemons from ROOT under chroot (cluster.sh), while the
# host's clients (Ceph 16.2's libraries, radoscp, ceph-fuse, the ceph CLI)
# talk to it: mixed releases, as during an upgrade. A root already made
# is kept (the mark ROOT/.radoscp-reef says it is complete), so a machine
# pays for it once: about 2 minutes and 800 MB. Needs root and Debian's
# archive.
set -euo pipefail

root=${1:?usage: test/reef.sh ROOT}
[[ -f $root/.radoscp-reef ]] && exit 0

command -v debootstrap >/dev/null || {
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}
# Bookworm's debootstrap and keyring know trixie.
[[ -x $root/usr/bin/apt-get ]] || debootstrap --variant=minbase trixie "$root" >/dev/null
# No package may start a daemon inside the root.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
for m in proc sys dev; do
	mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m"
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" apt-get update -qq
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	ceph-mon ceph-osd ceph-mgr ceph-mds ceph-common >/dev/null
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
