// Package rados is radoscp's cgo layer over librados: connections in the way
// Ceph's own tools make them (but for debug_client: left at Ceph's default
// 0/5 it becomes 0/0, see quietClientLog), object I/O and xattrs through go-ceph, and an
// asynchronous COPY_FROM2 that carries the destination's truncate generation,
// which librados' own copy_from2 silently drops. A copy in flight holds no
// thread or goroutine: librados' completion callback signals it by id; so
// does an asynchronous stat (Pool.StatAsync, the copy engine's pins).
// Conn.Close waits for every call, copy and stat made through the
// connection.
//
// Errors are *Error values that keep the errno; match them with errors.Is
// against the exported sentinels.
package rados
