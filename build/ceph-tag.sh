#!/usr/bin/env bash
# ceph-tag.sh prints go-ceph's build tag for the Ceph release whose client
# headers are installed (librados-dev on Debian, librados-devel on RPM
# systems): pacific, quincy, reef, squid or tentacle. go-ceph builds each
# release's API behind its tag; without one it builds the newest it knows,
# which would not compile against an older release's headers. The Makefile
# passes it to every go build and go test (CEPH_TAG=... overrides it).
set -euo pipefail

version=$(dpkg-query -W -f='${Version}' librados-dev 2>/dev/null ||
	rpm -q --qf '%{VERSION}' librados-devel 2>/dev/null) || {
	echo "ceph-tag.sh: neither librados-dev (dpkg) nor librados-devel (rpm) is installed: no Ceph headers to build against (make deps)" >&2
	exit 1
}
# Debian's 16.2.15+ds-0+deb12u2, 2:18.2.7-0.el9: the major after any epoch.
major=${version#*:}
major=${major%%.*}
case $major in
16) echo pacific ;;
17) echo quincy ;;
18) echo reef ;;
19) echo squid ;;
20) echo tentacle ;;
*)
	echo "ceph-tag.sh: librados headers of Ceph $version: this go-ceph (v0.40.0) builds Ceph 16 (pacific) to 20 (tentacle) only" >&2
	exit 1
	;;
esac
