// Package test holds the throwaway real Ceph cluster (cluster.sh) and the
// helpers that let Go tests find it: tests skip without a cluster, except
// under CI, where a missing cluster is a failure.
//
// cluster.sh starts a single-node cluster from Debian's Ceph 16.2 packages
// (deps.sh installs them) with every file inside one directory: one mon on
// a random 127.0.0.1 port, one mgr, three memstore OSDs, cephx on, the pools
// radoscp-a and radoscp-b (size 1, 8 PGs, application rados), the
// erasure-coded pool radoscp-ec (k=2, m=1, overwrites allowed) and, with
// --fs, one MDS and the CephFS "cephfs" (metadata pool cephfs_metadata,
// data pools cephfs_data, cephfs_data2 and the EC pool cephfs-ec). Sourcing DIR/env sets
// $CEPH_CONF and, with --fs, $RADOSCP_CEPHFS=1; client.admin's keyring is
// found through the conf.
//
//	make test                   # a cluster for one run of every test
//	make cluster-up             # or one to keep: . DIR/env, go test -tags "$(build/ceph-tag.sh)" ./...
//	make cluster-down
//
// A test asks for the cluster with [Conf] (or [FS] for CephFS), which skips
// it without one; $RADOSCP_REQUIRE_CLUSTER=1, set by make test and so by CI,
// turns that skip into a failure. [Ceph] runs the ceph CLI as admin,
// [Client] makes a client with restricted caps (object_prefix grants give
// EPERM outside the prefix), [InjectCopyFromError] makes copy-from fail on
// every OSD, and [UniqueName] names a test's objects and clients. For
// cluster faults, [StopDaemon] and [StartDaemon] stop and restart one OSD or
// the mon or the MDS (cluster.sh stop-daemon/start-daemon), [StartStandbyMDS]
// adds a standby MDS for failover tests (and takes it away, leaving no
// standby), [EvictClient] evicts a killed copier's session at rank 0, [OpenPool] opens a pool as client.admin, [Pool] makes a pool of
// several replicas that survives a stopped OSD, [Pause] holds every OSD
// operation (ceph osd pause), and [WaitClean] waits for active+clean.
// A fault the shared cluster must not see (an OSD killed: memstore loses
// its objects, the size-1 pools' among them) runs on a cluster of the
// test's own, [StartCluster], whose replicated pools all have size 2.
//
// A command's end-to-end tests build it once with [MainWithBinary] and
// run it with [RunBinary].
//
// Every test that asks for the cluster is watched (watch.go): a daemon
// that cluster.sh started and did not stop, found with no process, fails
// the tests running then and every later one, naming it with its crash
// from the log, and a test running past RADOSCP_TEST_LIMIT (20 minutes)
// panics with every goroutine's stack, so a dead OSD is a failure within
// a minute, not a hang until go test's timeout.
//
// The cluster is shared by every test of a run: use [UniqueName] prefixes,
// and do not run tests that change cluster-wide settings alongside others
// (make test runs one package at a time).
package test
