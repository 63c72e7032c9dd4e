//go:build reef

package main

const cephAPI = "Ceph 18.2 reef"
