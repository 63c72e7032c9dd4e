//go:build !pacific && !quincy && !reef && !squid && !tentacle

package main

// Without a release tag go-ceph builds the newest API it knows: for
// v0.40.0, Tentacle's.
const cephAPI = "newest go-ceph (Ceph 20.2 tentacle)"
