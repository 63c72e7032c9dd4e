//go:build pacific

package main

// cephAPI is the Ceph release whose client API go-ceph was built for
// (its build tag).
const cephAPI = "Ceph 16.2 pacific"
