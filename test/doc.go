// Package test holds the throwaway real Ceph cluster (cluster.sh) and the
// helpers that let Go tests find it: tests skip without a cluster, except
// under CI, where a missing cluster is a failure.
package test
