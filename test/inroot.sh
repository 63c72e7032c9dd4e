#!/usr/bin/env bash
# inroot.sh ROOT COMMAND...: run COMMAND in this checkout as seen from
# inside ROOT (a root test/reef.sh made), with this host's Go toolchain and
# module cache bound read-only and the checkout (and, for a git worktree,
# the repository it belongs to, read-only) bound at the same paths: a go
# build or go test there compiles against ROOT's Ceph headers and runs
# with its libraries. The build cache stays in ROOT (/root/.cache), so a
# second build is quick; nothing is fetched (GOPROXY=off). Every bind is
# undone when COMMAND ends (rootmounts.sh).
#
#   test/inroot.sh ROOT go build -tags reef -o /tmp/radoscp ./cmd/radoscp
#
# A cluster's directory (CEPH_CONF's) must already be bound in ROOT:
# RADOSCP_CEPH_ROOT=ROOT test/cluster.sh start binds it.
set -euo pipefail

root=${1:?usage: test/inroot.sh ROOT COMMAND...}
shift
(($#)) || { echo "usage: test/inroot.sh ROOT COMMAND..." >&2; exit 2; }
[[ -f $root/.radoscp-reef ]] || { echo "inroot.sh: $root is not a root test/reef.sh made" >&2; exit 1; }
root=$(cd "$root" && pwd -P)
. "$(dirname "${BASH_SOURCE[0]}")/rootmounts.sh"

checkout=$(git rev-parse --show-toplevel)
common=$(cd "$checkout" && cd "$(git rev-parse --git-common-dir)" && pwd -P)
goroot=$(go env GOROOT)
modcache=$(go env GOMODCACHE)
ro=("$goroot" "$modcache")
[[ $common == "$checkout"/* ]] || ro+=("$common")
root_bind "$root" "$checkout" --ro "${ro[@]}"
trap 'root_unbind "$root" "$checkout" "${ro[@]}"' EXIT

status=0
chroot "$root" env HOME=/root TMPDIR=/tmp PATH="$goroot/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
	GOROOT="$goroot" GOMODCACHE="$modcache" GOCACHE=/root/.cache/go-build GOPROXY=off GOTOOLCHAIN=local \
	GOFLAGS=-mod=readonly bash -c 'cd "$1" && shift && exec "$@"' inroot "$checkout" "$@" || status=$?
exit "$status"
