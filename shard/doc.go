// Package shard splits a tree among N workers that each walk all of it:
// worker K of N takes exactly the paths whose stable hash falls in its
// share, so that N independent runs (a Kubernetes Indexed Job, a Slurm
// job array, GNU parallel) together cover every path once, with no
// coordinator. A path's share is decided by the path itself, or (ByDir)
// by its directory's, so that one worker makes all of a directory's
// entries. It knows nothing of Ceph.
package shard
