//go:build squid

package main

const cephAPI = "Ceph 19.2 squid"
