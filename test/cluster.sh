#!/usr/bin/env bash
# cluster.sh: a throwaway single-node Ceph cluster for radoscp's tests.
#
#   test/cluster.sh start [--fs] [DIR]   start a cluster in DIR (default: a new
#                                        mktemp -d); prints DIR on stdout
#   test/cluster.sh stop DIR             stop that cluster and remove DIR
#   test/cluster.sh client DIR NAME 'TYPE CAPS'...
#                                        create client.NAME with those caps
#                                        (e.g. 'mon allow r' 'osd allow rw
#                                        pool=radoscp-a object_prefix foo');
#                                        prints its keyring's path
#   test/cluster.sh stop-daemon DIR NAME [--kill]
#                                        stop one daemon (osd.1, mon.a): TERM
#                                        and wait for it (an OSD saves its
#                                        memstore first), or KILL with --kill
#                                        (a killed memstore OSD loses its
#                                        objects: only for pools of size 2+)
#   test/cluster.sh start-daemon DIR NAME
#                                        start a stopped osd.N, mon.a or mds.a
#                                        again, or (with --fs) mds.b, a second
#                                        MDS that stands by for mds.a
#
# Then: `. DIR/env` (sets CEPH_CONF, and RADOSCP_CEPHFS=1 with --fs) and use
# `ceph`, `rados` or the Go helpers in this directory; see doc.go.
#
# The cluster is real Ceph from Debian's packages (test/deps.sh installs them),
# run without systemd or containers: one ceph-mon (msgr v2 on a random
# 127.0.0.1 port), one ceph-mgr, three ceph-osd on memstore, pools of size 1,
# cephx on, and an erasure-coded pool radoscp-ec (k=2, m=1, overwrites allowed).
# With --fs also one ceph-mds and a CephFS "cephfs". Everything the
# daemons write (data, logs, pid files, admin sockets, keyrings) is inside DIR,
# so several clusters can run side by side and `stop` leaves nothing behind.
#
# Environment: RADOSCP_CEPH_ROOT (a root file system, such as one test/reef.sh
# made, whose Ceph daemons and tools run the cluster under chroot: another
# Ceph release than the host's; the cluster directory is bound at the same
# path inside it, and the host's ceph CLI and clients talk to it),
# RADOSCP_CLUSTER_TIMEOUT (seconds to wait for health, default 120), RADOSCP_MON_PORT (first port to try instead of a random one),
# RADOSCP_OSD_BYTES (each memstore OSD's capacity, default 1 GiB; make bench
# raises it for its 1 GiB copy, which holds 2 GiB of objects).
set -euo pipefail

readonly TIMEOUT=${RADOSCP_CLUSTER_TIMEOUT:-120}
readonly NUM_OSDS=3
readonly OSD_BYTES=${RADOSCP_OSD_BYTES:-1073741824}
readonly PG_NUM=8
readonly RADOS_POOLS=(radoscp-a radoscp-b)
# Erasure-coded pools: radoscp-ec for rados/striper copies, and with --fs
# cephfs-ec, a CephFS data pool (migrate to and from EC; its hyphen, as in
# many clusters, makes layouts that name it take the MDS's per-field path).
readonly EC_PROFILE=radoscp-k2m1
# Ports for the mon are drawn below Linux's ephemeral range (32768-60999), so
# an outgoing connection's local port cannot take one between our check and
# the mon's bind. The OSDs, mgr and mds bind in Ceph's own 6800-7300 range and
# step over ports in use by themselves.
readonly PORT_MIN=20000 PORT_SPAN=12000

. "$(dirname "${BASH_SOURCE[0]}")/rootmounts.sh"

# in_root runs a Ceph program of the cluster: under chroot when the
# cluster runs from another root (its directory's ceph-root names it),
# unless this script already runs inside that root (its mark, which
# reef.sh leaves, is at /: a test run there by inroot.sh restarts a daemon).
in_root() {
	if [[ -f $dir/ceph-root && ! -f /.radoscp-reef ]]; then
		chroot "$(<"$dir/ceph-root")" "$@"
	else
		"$@"
	fi
}

# bind_root binds the cluster directory into the root at the same path
# (and /proc, /sys and /dev: rootmounts.sh).
bind_root() {
	root_bind "$1" "$dir"
	echo "$1" >"$dir/ceph-root"
}

unbind_root() {
	[[ -f $dir/ceph-root && ! -f /.radoscp-reef ]] || return 0
	root_unbind "$(<"$dir/ceph-root")" "$dir"
}

# release is the Ceph release of the daemons (pacific, reef, ...).
release() {
	in_root ceph-mon --version | sed -n 's/.*) \([a-z]*\) (.*/\1/p'
}

# newer_release_options are conf lines for daemons newer than Pacific:
# Quincy's and later mgrs make a .mgr pool after they start, which would
# change the pool and PG counts the tests and the health check expect.
newer_release_options() {
	[[ $(release) == pacific ]] || echo "mgr pool = false"
}

die() {
	echo "cluster.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

# ceph_ runs the ceph CLI as client.admin against the cluster in $dir. The
# connect timeout turns a dead mon into an error instead of a hang.
ceph_() {
	ceph -c "$dir/ceph.conf" --connect-timeout 15 "$@"
}

# now_ms prints the wall clock in milliseconds, for the start-up time.
now_ms() {
	local s ns
	read -r s ns < <(date '+%s %N')
	echo $((s * 1000 + 10#$ns / 1000000))
}

# free_port prints a 127.0.0.1 port nothing listens on; RADOSCP_MON_PORT is
# tried first when $1 is 1 (the first attempt). A connect that succeeds means
# a listener; bash's /dev/tcp needs no extra tools. The mon's own bind is the
# final check (see start_mon).
free_port() {
	local port tries
	for ((tries = 0; tries < 100; tries++)); do
		if [[ -n ${RADOSCP_MON_PORT:-} && $1 -eq 1 && $tries -eq 0 ]]; then
			port=$RADOSCP_MON_PORT
		else
			port=$((PORT_MIN + (RANDOM * 32768 + RANDOM) % PORT_SPAN))
		fi
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	die "no free port found in $PORT_MIN-$((PORT_MIN + PORT_SPAN))"
}

# write_conf writes DIR/ceph.conf for a mon on port $1. Every path is inside
# $dir; $name expands per daemon/client (mon.a, osd.0, client.admin, ...).
write_conf() {
	cat >"$dir/ceph.conf" <<EOF
# Throwaway test cluster made by test/cluster.sh; removed by "cluster.sh stop".
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$1]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
# msgr v2 only, IPv4 only: one port per daemon, nothing on ::1.
ms bind msgr1 = false
ms bind msgr2 = true
ms bind ipv6 = false
# A mon whose port was taken must fail at once so we can retry another
# (this is the number of bind attempts; 0 would make none).
ms bind retry count = 1

auth cluster required = cephx
auth service required = cephx
auth client required = cephx
# A new cluster has no old clients; without this the cluster warns.
auth allow insecure global id reclaim = false
# Every entity's keyring sits next to this file: client.admin's is
# ceph.client.admin.keyring, client.foo's ceph.client.foo.keyring, so
# "rados --id foo -c $dir/ceph.conf" finds its key without --keyring.
keyring = $dir/\$cluster.\$name.keyring

run dir = $dir/run
crash dir = $dir/crash
log file = $dir/log/\$name.log
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
mon data = $dir/data/\$name
osd data = $dir/data/\$name
mgr data = $dir/data/\$name
mds data = $dir/data/\$name

# One host, three OSDs: replicate across OSDs, not hosts; size-1 pools
# (copies are what we test, not redundancy).
osd crush chooseleaf type = 0
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = $PG_NUM
osd pool default pgp num = $PG_NUM
osd pool default pg autoscale mode = off
mon allow pool size one = true
# The mon enables these mgr modules in a new cluster: none (see [mgr]).
mgr initial modules =
mon allow pool delete = true
$(newer_release_options)
mon warn on pool no redundancy = false
# A full test disk must not take the mon down with it (default crit 5%).
mon data avail warn = 2
mon data avail crit = 1

# memstore keeps objects in memory: nothing to format, fast to start, gone at
# stop. device bytes is the capacity the OSD reports, not memory reserved.
osd objectstore = memstore
memstore device bytes = $OSD_BYTES
# A memstore OSD's operations slow down as its PG logs grow, and with this
# cluster's few PGs an OSD lets each keep 10,000 entries (300,000 an OSD,
# osd_target_pg_log_entries_per_osd, over 10-20 PGs): at about 7,000 a PG,
# 256 copy-froms at once took twice as long as on a new cluster, and each
# run of a benchmark slowed the next (docs/benchmarks.md, "A test cluster
# that wears"). Short logs keep every run as fast as the first. An OSD
# that was down longer than 500 writes of a PG catches up by backfill
# rather than from the log: slower, the same objects.
osd max pg log entries = 500
osd pg log dups tracked = 500
# Report PG states quickly, so waiting for active+clean is short.
osd mon report interval = 1
mgr stats period = 1
mon mgr digest period = 1
mgr tick period = 1
# "stop" ends all daemons at once, so OSDs and the MDS must not wait the
# default 5 s for a mon that is going away to acknowledge their leaving.
osd mon shutdown timeout = 1
mds mon shutdown timeout = 1

[mon]
# The mon keeps the key it was made with in its data directory.
keyring = $dir/data/\$name/keyring
# EC overwrites (needed for rados writes, libradosstriper and CephFS data in
# an EC pool) are refused on anything but bluestore unless this is set; our
# OSDs are memstore.
mon debug no require bluestore for ec overwrites = true

[client]
# Clients (the CLIs, Go tests) have no admin socket and share one log file
# per entity.
admin socket =
# No librados call of a test waits for ever: a PG whose OSD died would
# hold it until go test's timeout. (radoscp's --op-timeout, when given,
# takes precedence; libcephfs and ceph-fuse have no such bound: the tests'
# watcher, test/watch.go, covers them.)
rados osd op timeout = 300
rados mon op timeout = 300

[mgr]
# Load as few python modules as we can: each costs memory and start-up time.
# Those below are off unless enabled; the always-on ones (balancer, crash,
# devicehealth, orchestrator, pg_autoscaler, progress, rbd_support, status,
# telemetry, volumes) cannot be left out without the cluster going HEALTH_ERR,
# so they load, and start_mgr tells them to stay idle.
mgr disabled modules = alerts diskprediction_local influx insights iostat localpool mirroring nfs osd_perf_query osd_support prometheus restful selftest snap_schedule stats telegraf test_orchestrator zabbix

[mds]
mds standby replay = false
EOF
}

# add_key creates DIR/ceph.NAME.keyring with a new key and caps, and adds it
# to the keyring the mon imports at mkfs, so no daemon needs "ceph auth add".
add_key() {
	local name=$1
	shift
	in_root ceph-authtool --create-keyring "$dir/ceph.$name.keyring" --gen-key -n "$name" "$@" >/dev/null
	in_root ceph-authtool "$dir/mkfs.keyring" --import-keyring "$dir/ceph.$name.keyring" >/dev/null
}

make_keys() {
	in_root ceph-authtool --create-keyring "$dir/mkfs.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
	add_key client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *'
	add_key mgr.x --cap mon 'allow profile mgr' --cap osd 'allow *' --cap mds 'allow *'
	local i
	for ((i = 0; i < NUM_OSDS; i++)); do
		add_key "osd.$i" --cap mon 'allow profile osd' --cap mgr 'allow profile osd' --cap osd 'allow *'
	done
	if ((fs)); then
		add_key mds.a --cap mon 'allow profile mds' --cap mgr 'allow profile mds' --cap osd 'allow *' --cap mds 'allow'
		add_key mds.b --cap mon 'allow profile mds' --cap mgr 'allow profile mds' --cap osd 'allow *' --cap mds 'allow'
	fi
}

# start_mon makes the monitor and starts it, on a new port until one binds:
# another cluster may take the port between free_port and the bind.
start_mon() {
	local port attempt
	for ((attempt = 1; attempt <= 5; attempt++)); do
		port=$(free_port "$attempt")
		write_conf "$port"
		rm -rf "$dir/data/mon.a" "$dir/monmap"
		in_root monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$port]" \
			--enable-all-features --set-min-mon-release "$(release)" "$dir/monmap" >/dev/null
		in_root ceph-mon -c "$dir/ceph.conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/mkfs.keyring" \
			>>"$dir/log/mkfs.log" 2>&1
		# ceph-mon forks into the background once it has bound its port; a
		# failed bind makes this command itself fail.
		if in_root ceph-mon -c "$dir/ceph.conf" -i a </dev/null >>"$dir/log/daemons.out" 2>&1; then
			want mon.a
			echo "mon.a on 127.0.0.1:$port" >&2
			return
		fi
		echo "cluster.sh: mon could not start on port $port, trying another" >&2
	done
	fail "ceph-mon did not start"
}

# start_mgr starts the mgr once its always-on modules are told to stay idle:
# no balancer moving PGs under the tests, no device_health_metrics pool
# appearing while we count PGs. Module options are read from the mon's
# config database only, not from ceph.conf; the mon knows no module options
# before a mgr has run, hence --force.
start_mgr() {
	setup config set mgr mgr/balancer/active false --force
	setup config set mgr mgr/devicehealth/enable_monitoring false --force
	in_root ceph-mgr -c "$dir/ceph.conf" -i x </dev/null >>"$dir/log/daemons.out" 2>&1
	want mgr.x
}

# start_osd registers osd.$1, makes its memstore and starts it.
start_osd() {
	local id=$1 uuid
	uuid=$(cat /proc/sys/kernel/random/uuid)
	mkdir -p "$dir/data/osd.$id"
	setup osd new "$uuid" "$id"
	in_root ceph-osd -c "$dir/ceph.conf" -i "$id" --mkfs --osd-uuid "$uuid" >>"$dir/log/mkfs.log" 2>&1
	in_root ceph-osd -c "$dir/ceph.conf" -i "$id" </dev/null >>"$dir/log/daemons.out" 2>&1
	want "osd.$id"
}

# setup runs a ceph CLI command of the start-up, its output into a log that
# a failed start prints.
setup() {
	ceph_ "$@" >>"$dir/log/setup.log" 2>&1
}

create_pool() {
	setup osd pool create "$1" "$PG_NUM" "$PG_NUM"
}

start_mds() {
	in_root ceph-mds -c "$dir/ceph.conf" -i "${1:-a}" </dev/null >>"$dir/log/daemons.out" 2>&1
	want "mds.${1:-a}"
}

# want marks daemon $1 as one that should be running, for the tests'
# watcher (test/watch.go), which fails the tests when such a daemon has
# no process: a crashed daemon removes its pid file, so only this mark
# says it ought to be there. unwant takes the mark away before a daemon
# is stopped on purpose.
want() {
	touch "$dir/run/$1.want"
}

unwant() {
	rm -f "$dir/run/$1.want"
}

# create_ec_pool makes erasure-coded pool $1 (k=2, m=1, one chunk per OSD)
# that accepts overwrites.
create_ec_pool() {
	setup osd pool create "$1" "$PG_NUM" "$PG_NUM" erasure "$EC_PROFILE"
	setup osd pool set "$1" allow_ec_overwrites true
}

# make_fs makes the CephFS "cephfs": metadata in cephfs_metadata, file data
# in cephfs_data by default and cephfs_data2 for directories whose layout
# names it (cross-pool copies).
make_fs() {
	run_all "create_pool cephfs_metadata" "create_pool cephfs_data" "create_pool cephfs_data2" \
		"create_ec_pool cephfs-ec"
	setup fs new cephfs cephfs_metadata cephfs_data
	setup fs add_data_pool cephfs cephfs_data2
	setup fs add_data_pool cephfs cephfs-ec
	# No standby MDS: without this the cluster warns about it.
	setup fs set cephfs standby_count_wanted 0
	# A client killed with -9 keeps its capabilities until the MDS gives
	# its session up as stale (60 s by default, 30 s at least); a rerun that opens the
	# same file waits for that. Crash tests kill clients.
	setup fs set cephfs session_timeout 30
}

# run_all runs each of its arguments (a command line) in the background and
# fails if any failed: the ceph CLI spends most of its time starting Python,
# so independent calls go faster side by side.
run_all() {
	local pids=() cmd pid rc=0
	for cmd in "$@"; do
		eval "$cmd" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || rc=1
	done
	return "$rc"
}

# healthy says whether the cluster is ready: all OSDs up and in, every PG of
# every pool active+clean, and with --fs one MDS up:active.
healthy() {
	ceph_ status -f json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
osd, pg = s["osdmap"], s["pgmap"]
ok = osd["num_up_osds"] == osd["num_in_osds"] == int(sys.argv[1])
ok = ok and pg["num_pgs"] >= int(sys.argv[2])
ok = ok and sum(x["count"] for x in pg.get("pgs_by_state", [])
                if x["state_name"] == "active+clean") == pg["num_pgs"]
if sys.argv[3] == "1":
    ok = ok and any(m["status"] == "up:active" for m in s["fsmap"]["by_rank"])
sys.exit(0 if ok else 1)
' "$NUM_OSDS" "$1" "$fs"
}

# logs prints the tail of every daemon's log, for a start-up that failed.
logs() {
	local f
	for f in "$dir"/log/*; do
		[[ -f $f ]] || continue
		echo "==== $f (last 30 lines)" >&2
		tail -n 30 "$f" >&2
	done
}

fail() {
	echo "cluster.sh: $*" >&2
	exit 1
}

# start_exit runs when "start" exits. On failure it prints the logs and stops
# the daemons started so far; DIR is kept so the logs can be read.
start_exit() {
	local rc=$?
	((rc != 0)) || return 0
	echo "cluster.sh: start failed (exit $rc)" >&2
	logs
	kill_daemons || true
	echo "cluster.sh: daemons stopped; logs kept in $dir/log" >&2
}

cmd_start() {
	fs=0
	if [[ ${1:-} == --fs ]]; then
		fs=1
		shift
	fi
	(($# <= 1)) || usage
	if (($# == 1)); then
		dir=$1
		mkdir -p "$dir"
		[[ -z $(ls -A "$dir") ]] || die "$dir is not empty"
	else
		dir=$(mktemp -d "${TMPDIR:-/tmp}/radoscp-ceph.XXXXXX")
	fi
	dir=$(cd "$dir" && pwd -P)
	# The marker lets "stop" refuse to delete a directory it did not make.
	touch "$dir/.radoscp-cluster"
	if [[ -n ${RADOSCP_CEPH_ROOT:-} ]]; then
		[[ -x $RADOSCP_CEPH_ROOT/usr/bin/ceph-mon ]] || die "RADOSCP_CEPH_ROOT=$RADOSCP_CEPH_ROOT has no usr/bin/ceph-mon (test/reef.sh makes one)"
		bind_root "$(cd "$RADOSCP_CEPH_ROOT" && pwd -P)"
	fi
	mkdir -p "$dir/run" "$dir/log" "$dir/data/mgr.x" "$dir/data/mds.a" "$dir/data/mds.b" "$dir/crash"
	fsid=$(cat /proc/sys/kernel/random/uuid)
	local t0
	t0=$(now_ms)
	trap start_exit EXIT
	trap 'exit 130' INT TERM

	make_keys
	start_mon
	setup osd erasure-code-profile set "$EC_PROFILE" k=2 m=1 crush-failure-domain=osd

	# Everything after the mon is independent: daemons, pools, the file
	# system. OSDs take ~2 s to boot; pools and the MDS wait for nothing.
	local i jobs=(start_mgr) pools=("${RADOS_POOLS[@]}")
	for ((i = 0; i < NUM_OSDS; i++)); do
		jobs+=("start_osd $i")
	done
	for pool in "${RADOS_POOLS[@]}"; do
		jobs+=("create_pool $pool && setup osd pool application enable $pool rados")
	done
	pools+=(radoscp-ec)
	jobs+=("create_ec_pool radoscp-ec && setup osd pool application enable radoscp-ec rados")
	if ((fs)); then
		pools+=(cephfs_metadata cephfs_data cephfs_data2 cephfs-ec)
		jobs+=(start_mds make_fs)
	fi
	run_all "${jobs[@]}"
	# Snapshot trimming is held off on every test cluster: Ceph 16.2's
	# memstore crashes the OSD in it (a segfault in
	# MemStore::OmapIteratorImpl::value under SnapMapper::get_next_objects_to_trim:
	# the iterator over the OSD-wide snap mapper object's omap is used while
	# another PG's transaction changes that omap), and with size-1 pools a
	# dead OSD leaves its PGs stale and every later I/O waiting. Removed
	# snapshots stay queued for trimming (their clones are kept) until the
	# cluster is thrown away; the tests read snapshots, none needs their
	# space back. The flag's health warning is muted.
	setup osd set nosnaptrim
	setup health mute OSDMAP_FLAGS

	local pgs=$((${#pools[@]} * PG_NUM)) deadline=$((SECONDS + TIMEOUT))
	until healthy "$pgs"; do
		if ((SECONDS >= deadline)); then
			ceph_ status >&2 || true
			fail "cluster not healthy after ${TIMEOUT}s"
		fi
		sleep 0.2
	done

	{
		echo "# Source this file to use the test cluster in $dir."
		echo "export CEPH_CONF=$dir/ceph.conf"
		if ((fs)); then
			echo "export RADOSCP_CEPHFS=1"
		fi
	} >"$dir/env"
	rm -f "$dir/mkfs.keyring"
	local t1
	t1=$(now_ms)
	printf 'cluster.sh: cluster%s up in %d.%03d s; run: . %s/env\n' \
		"$( ((fs)) && echo ' with CephFS')" $(((t1 - t0) / 1000)) $(((t1 - t0) % 1000)) "$dir" >&2
	echo "$dir"
}

# is_ours says whether process $1 is a daemon of this cluster: its command
# line names this cluster's ceph.conf. A pid file can outlive its daemon and
# the pid be reused; a zombie has an empty command line. Bash builtins only,
# as this runs for every process on the machine.
is_ours() {
	local arg args=()
	mapfile -d '' -t args 2>/dev/null <"/proc/$1/cmdline" || return 1
	for arg in "${args[@]}"; do
		[[ $arg == "$dir/ceph.conf" ]] && return 0
	done
	return 1
}

# our_pids prints the pids of this cluster's daemons: those in its pid files,
# plus any that had not written its pid file yet (found by the exact path of
# this cluster's ceph.conf on its command line, never by program name).
our_pids() {
	local f pid
	for f in "$dir"/run/*.pid /proc/[0-9]*; do
		if [[ $f == /proc/* ]]; then
			pid=${f#/proc/}
		elif [[ -f $f ]]; then
			pid=$(<"$f")
		else
			continue
		fi
		is_ours "$pid" && echo "$pid"
	done | sort -un
}

# kill_daemons stops this cluster's daemons: TERM, up to 10 s to exit, then KILL.
kill_daemons() {
	local pids alive pid i
	mapfile -t pids < <(our_pids)
	((${#pids[@]})) || return 0
	kill -TERM "${pids[@]}" 2>/dev/null || true
	for ((i = 0; i < 150; i++)); do
		alive=()
		for pid in "${pids[@]}"; do
			is_ours "$pid" && alive+=("$pid")
		done
		((${#alive[@]})) || return 0
		if ((i == 100)); then
			echo "cluster.sh: killing ${alive[*]}" >&2
			kill -KILL "${alive[@]}" 2>/dev/null || true
		fi
		sleep 0.1
	done
	die "daemons ${alive[*]} did not exit"
}

cmd_stop() {
	(($# == 1)) || usage
	[[ -d $1 ]] || die "no cluster directory $1"
	dir=$(cd "$1" && pwd -P)
	# An empty directory is one made for a start that never began (make
	# test makes it first): nothing to stop.
	if [[ -z $(ls -A "$dir") ]]; then
		rmdir "$dir"
		return
	fi
	[[ -f $dir/.radoscp-cluster ]] || die "$dir was not made by cluster.sh; not touching it"
	rm -f "$dir"/run/*.want
	kill_daemons
	unbind_root
	rm -rf "$dir"
}

# quietly runs a command and shows its output only if it fails: "ceph auth"
# chatters on stderr even when all went well.
quietly() {
	local out
	if ! out=$("$@" 2>&1); then
		printf '%s\n' "$out" >&2
		return 1
	fi
}

cmd_client() {
	(($# >= 3)) || usage
	[[ -f $1/.radoscp-cluster ]] || die "$1 is not a cluster made by cluster.sh"
	[[ $2 =~ ^[A-Za-z0-9_.-]+$ ]] || die "invalid client name '$2'"
	dir=$(cd "$1" && pwd -P)
	local name=client.$2 caps=() c
	shift 2
	# 'osd allow rw pool=x' -> osd 'allow rw pool=x', as "ceph auth" wants.
	for c in "$@"; do
		[[ $c == *" "* ]] || die "capability '$c' is not 'TYPE CAPS'"
		caps+=("${c%% *}" "${c#* }")
	done
	local keyring=$dir/ceph.$name.keyring
	# get-or-create refuses an existing entity with other caps: update them.
	if ceph_ auth get "$name" >/dev/null 2>&1; then
		quietly ceph_ auth caps "$name" "${caps[@]}"
		quietly ceph_ auth get "$name" -o "$keyring"
	else
		quietly ceph_ auth get-or-create "$name" "${caps[@]}" -o "$keyring"
	fi
	echo "$keyring"
}

# daemon_pid prints the pid of daemon $1 (osd.N, mon.a) if it runs.
daemon_pid() {
	local f=$dir/run/$1.pid pid
	[[ -f $f ]] || return 1
	pid=$(<"$f")
	is_ours "$pid" || return 1
	echo "$pid"
}

cluster_dir() {
	[[ -f $1/.radoscp-cluster ]] || die "$1 is not a cluster made by cluster.sh"
	dir=$(cd "$1" && pwd -P)
}

cmd_stop_daemon() {
	(($# == 2 || $# == 3)) || usage
	cluster_dir "$1"
	local name=$2 sig=TERM pid i
	[[ $name =~ ^(osd\.[0-9]+|mon\.a|mds\.[ab]|mgr\.x)$ ]] || die "unknown daemon '$name'"
	[[ ${3:-} == --kill ]] && sig=KILL
	pid=$(daemon_pid "$name") || die "$name is not running"
	# An OSD's fast shutdown skips unmounting, and only an unmount saves
	# memstore's objects: a stopped OSD must come back with its data (a
	# size-1 pool has no other copy of its PGs), so stop it the slow way.
	if [[ $sig == TERM && $name == osd.* ]]; then
		ceph_ tell "$name" config set osd_fast_shutdown false >/dev/null
	fi
	unwant "$name"
	kill -"$sig" "$pid"
	for ((i = 0; i < 300; i++)); do
		if ! is_ours "$pid"; then
			# A daemon killed leaves its pid file behind, and a later
			# process of this cluster given the same pid (a ceph CLI
			# call, which names this ceph.conf too) would pass for it:
			# start-daemon would find it "already running".
			rm -f "$dir/run/$name.pid"
			return 0
		fi
		# An MDS keeps nothing locally (its journal is in RADOS), and its
		# shutdown can hang after a failover: give it 5 s, then KILL.
		if ((i == 50)) && [[ $name == mds.* ]]; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
		sleep 0.1
	done
	die "$name (pid $pid) did not exit"
}

cmd_start_daemon() {
	(($# == 2)) || usage
	cluster_dir "$1"
	local name=$2
	! daemon_pid "$name" >/dev/null || die "$name is already running"
	case $name in
	osd.*)
		in_root ceph-osd -c "$dir/ceph.conf" -i "${name#osd.}" </dev/null >>"$dir/log/daemons.out" 2>&1
		want "$name"
		;;
	mon.a)
		in_root ceph-mon -c "$dir/ceph.conf" -i a </dev/null >>"$dir/log/daemons.out" 2>&1
		want mon.a
		;;
	mds.a | mds.b)
		[[ -f $dir/ceph.$name.keyring ]] || die "no key for $name: the cluster was started without --fs"
		start_mds "${name#mds.}"
		;;
	*) die "cannot start '$name'" ;;
	esac
	# The daemon writes its pid file a moment after its command returns.
	# A test that stops it soon after (StartStandbyMDS's cleanup) looks
	# for that file: found missing, the daemon would pass for stopped and
	# be left running (a standby MDS the tests never asked for).
	local i
	for ((i = 0; i < 100; i++)); do
		daemon_pid "$name" >/dev/null && return 0
		sleep 0.1
	done
	die "$name wrote no pid file within 10 s of its start"
}

main() {
	(($# >= 1)) || usage
	local cmd=$1
	shift
	case $cmd in
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	client) cmd_client "$@" ;;
	stop-daemon) cmd_stop_daemon "$@" ;;
	start-daemon) cmd_start_daemon "$@" ;;
	*) usage ;;
	esac
}

main "$@"
