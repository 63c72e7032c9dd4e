//go:build !pacific && !quincy && !reef && !squid

package main

const cephAPI = "newest Ceph"
