// Package radoscp copies data inside a Ceph cluster without moving it through
// the client: it issues RADOS COPY_FROM2 operations, many at once, and the
// OSDs copy the objects among themselves.
//
// Copy ties the packages together: layout plans the copy, window keeps up to
// N copy-froms in flight, rados issues them, and truncate publishes the
// destination's EOF or cuts a failed copy back to it.
//
// A pinned copy (Options.PinSource) stats each source object ahead of its
// copy and has the copy-from carry the version seen, so the OSD refuses an
// object that changed. The stats run wider than the window, ahead of the
// copies. The first window's copy-froms start with the stats instead of
// waiting for them; the version the OSD names in each one's reply (the
// one it copied) must be the one its stat saw. Objects copied before the
// last stat returned are stat'ed once more after it. Because an object's
// version never repeats, a copy that succeeds holds every object as it was
// at one instant, when the last stat returned; a change before that
// instant fails the copy, naming the object. The argument is spelled out on the pins type (pin.go).
package radoscp
