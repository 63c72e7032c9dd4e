// Package radoscp copies data inside a Ceph cluster without moving it through
// the client: it issues RADOS COPY_FROM2 operations, many at once, and the
// OSDs copy the objects among themselves.
//
// Copy ties the packages together: layout plans the copy, window keeps up to
// N copy-froms in flight, rados issues them, and truncate publishes the
// destination's EOF or cuts a failed copy back to it.
package radoscp
