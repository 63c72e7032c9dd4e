//go:build tentacle

package main

const cephAPI = "Ceph 20.2 tentacle"
