#!/usr/bin/env bash
# deps.sh: install what building and testing radoscp needs on Debian: Ceph's
# daemons for the throwaway test cluster (test/cluster.sh), the librados,
# libradosstriper and libcephfs headers for cgo, a C++ compiler for the
# copy-from shim, and the tools the tests check copies with through a
# ceph-fuse mount (rsync; getfattr, from attr, for layouts, quotas and
# xattrs; setfacl, from acl, for POSIX ACLs). A quick no-op when everything
# is installed, so "make test" can always run it.
set -euo pipefail

packages=(
	ceph-mon ceph-osd ceph-mgr ceph-mds ceph-common ceph-fuse
	librados-dev libradospp-dev libcephfs-dev libradosstriper-dev
	g++ rsync attr acl
)

missing=()
for p in "${packages[@]}"; do
	if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) != "install ok installed" ]]; then
		missing+=("$p")
	fi
done
((${#missing[@]})) || exit 0

sudo=()
if ((EUID != 0)); then
	command -v sudo >/dev/null || {
		echo "deps.sh: need root (or sudo) to install: ${missing[*]}" >&2
		exit 1
	}
	sudo=(sudo)
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
# No recommends: ceph-mgr's would add the dashboard and other mgr modules
# that the test cluster neither needs nor loads.
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
