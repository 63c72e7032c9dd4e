#!/usr/bin/env bash
# deb-test.sh DEB: installs the package DEB on this machine (as CI does on
# its throwaway one), checks what it installed, runs the installed
# radoscp's --version and the demo copy with it, then removes the package
# again (unless radoscp was installed before, which it refuses to touch).
set -euo pipefail
deb=${1:?usage: deb-test.sh DEB}
cd "$(dirname "$0")/.."
if dpkg-query -W -f='${Status}' radoscp 2>/dev/null | grep -q 'install ok installed'; then
	echo "deb-test.sh: a radoscp package is already installed here; remove it first" >&2
	exit 1
fi
trap 'dpkg --purge radoscp >/dev/null' EXIT
# apt-get resolves the Depends line against this machine's packages.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$(readlink -f "$deb")" >/dev/null
for f in /usr/bin/radoscp /usr/bin/radoscp-nightly-clone /usr/bin/radoscp-nightly-sync /usr/share/man/man1/radoscp.1.gz \
	/usr/share/man/man1/radoscp-cp.1.gz /usr/share/bash-completion/completions/radoscp \
	/usr/lib/systemd/system/radoscp-nightly-clone.service /usr/lib/systemd/system/radoscp-nightly-clone.timer \
	/etc/radoscp/nightly-clone.env; do
	[[ -s $f ]] || { echo "deb-test.sh: the package did not install $f" >&2; exit 1; }
done
grep -q '^ExecStart=/usr/bin/radoscp-nightly-clone$' /usr/lib/systemd/system/radoscp-nightly-clone.service ||
	{ echo "deb-test.sh: the installed unit does not start /usr/bin/radoscp-nightly-clone" >&2; exit 1; }
v=$(/usr/bin/radoscp --version)
echo "installed: $v"
commit=$(git rev-parse --short=7 HEAD)
[[ $v == *"$commit"* ]] || { echo "deb-test.sh: --version does not name commit $commit: $v" >&2; exit 1; }
make --no-print-directory demo-run RADOSCP=/usr/bin/radoscp
