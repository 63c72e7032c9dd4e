//go:build quincy

package main

const cephAPI = "Ceph 17.2 quincy"
