# rootmounts.sh, sourced by cluster.sh, reef.sh and inroot.sh: the bind
# mounts that let programs run under chroot in another Ceph release's root
# (test/reef.sh). Several users share one root (clusters of several
# helpers, a build), so /proc, /sys and /dev are bound by the first and
# unbound by the last: a lock file in the root orders them, and "last"
# means that nothing else is mounted under the root any more.

# root_bind ROOT [--ro] DIR...: bind /proc, /sys and /dev into ROOT if they
# are not yet, and each DIR at the same path inside (read-only after
# --ro).
root_bind() {
	local root=$1 ro=0 m
	shift
	exec {lock}>"$root/.radoscp-mounts.lock"
	flock "$lock"
	for m in proc sys dev; do
		mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m"
	done
	for m; do
		if [[ $m == --ro ]]; then
			ro=1
			continue
		fi
		mkdir -p "$root$m"
		mount --bind "$m" "$root$m"
		((ro == 0)) || mount -o remount,bind,ro "$root$m"
	done
	exec {lock}>&-
}

# root_unbind ROOT DIR...: unmount each DIR bound by root_bind (and remove
# its mount point if empty), then /proc, /sys and /dev if nothing else is
# mounted under ROOT.
root_unbind() {
	local root=$1 m
	shift
	exec {lock}>"$root/.radoscp-mounts.lock"
	flock "$lock"
	for m; do
		[[ $m == --ro ]] && continue
		if mountpoint -q "$root$m"; then
			umount "$root$m" 2>/dev/null || umount -l "$root$m"
		fi
		rmdir "$root$m" 2>/dev/null || true
	done
	if [[ -z $(findmnt -rn -o TARGET | grep -v -x -e "$root/proc" -e "$root/sys" -e "$root/dev" | grep -F "$root/") ]]; then
		for m in proc sys dev; do
			if mountpoint -q "$root/$m"; then
				umount "$root/$m" 2>/dev/null || umount -l "$root/$m"
			fi
		done
	fi
	exec {lock}>&-
}
