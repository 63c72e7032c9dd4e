// Package cephfs is what radoscp needs from a CephFS mount: file metadata
// (inode, size, layout, times, xattrs), exclusive creation of staging files
// with a chosen layout, writes, truncation, renames, and the one fact
// libcephfs does not expose through its API, the truncate generation of an
// open file, read from the client's own admin socket. Below a directory a
// copy confines (FS.Confine), its writes, listings and opens find their
// directory by inode, one name at a time, and follow no symlink another
// client swapped in. Below a root held open (FS.HoldRoot: a snapshot's),
// paths are walked from there, sparing the MDS the snapshot's lookup that
// every walk through DIR/.snap/NAME asks of it.
//
// It is a thin layer over go-ceph's cephfs package, sharing the rados
// connection (one cephx session for object copies and file metadata).
package cephfs
