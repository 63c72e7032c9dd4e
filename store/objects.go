package store

import "time"

// DefaultChunk bounds one read or write the copy engine sends through
// Objects unless told otherwise, and one copy-from's extent.
const DefaultChunk = 4 << 20

// Objects is one pool (and namespace) of an object store. Every
// implementation and every decorator implements all of it, so a wrapped
// pool behaves as the pool underneath for every operation the engine and
// the destinations use. Errors are *Error, matched with errors.Is against
// the sentinels (ErrNotFound, ...).
type Objects interface {
	// Locate names oid for a copy-from that reads it.
	Locate(oid string) Location
	// Ref is oid as messages show it: "pool[/namespace]/oid".
	Ref(oid string) string

	Stat(oid string) (ObjectStat, error)
	// Read reads into buf from off; it returns fewer bytes only at the
	// object's end. A missing object gives ErrNotFound.
	Read(oid string, buf []byte, off uint64) (int, error)
	Write(oid string, data []byte, off uint64) error
	// WriteFull replaces the object's data with data.
	WriteFull(oid string, data []byte) error
	// Zero makes [off, off+length) of the object read as zeros, and does
	// nothing to a missing object (which reads as zeros already): how a
	// hole is copied over old data without filling it in. It never grows
	// the object; a range reaching its end cuts it at off instead.
	Zero(oid string, off, length uint64) error
	Truncate(oid string, size uint64) error
	Remove(oid string) error
	// RemoveIfVersion removes oid only if its user version (ObjectStat.
	// Version) is still version, in one op; if any change came between,
	// nothing changes and it returns ECANCELED.
	RemoveIfVersion(oid string, version uint64) error
	// Create creates oid, which must not exist (ErrExists), with xattrs,
	// atomically.
	Create(oid string, xattrs map[string][]byte) error

	// Submit starts a COPY_FROM2 of src over dstOid, replacing the whole
	// destination object (data, xattrs, omap). A non-nil error means
	// nothing was sent; otherwise the Pending must be waited for.
	Submit(dstOid string, src Location, o CopyOptions) (Pending, error)

	// Xattr reads one xattr; a missing one gives ENODATA.
	Xattr(oid, name string) ([]byte, error)
	Xattrs(oid string) (map[string][]byte, error)
	SetXattr(oid, name string, value []byte) error
	RmXattr(oid, name string) error
	// GrowXattr sets the decimal-number xattr name to n only if n is
	// greater than its value, atomically (cmpxattr GT then setxattr); it
	// reports whether it did.
	GrowXattr(oid, name string, n uint64) (bool, error)
	// ResetXattr sets the decimal-number xattr name to 0 and truncates
	// the object's data to 0 bytes in one op, only if the xattr holds
	// expect; with alsoName not empty, the same op sets xattr alsoName to
	// alsoValue. It reports whether it did.
	ResetXattr(oid, name string, expect uint64, alsoName string, alsoValue []byte) (bool, error)
	// Checksum is a 64-bit hash (xxhash64 on the OSD) of the object's
	// bytes [off, off+length), computed where the data is: a fingerprint
	// of its data that does not move when only its xattrs or locks do,
	// with nothing but the sum crossing the client. A range past the
	// object's end gives ERANGE.
	Checksum(oid string, off, length uint64) (uint64, error)

	// LockExclusive takes (or with renew, renews) the exclusive advisory
	// lock name on oid for duration, after which it expires.
	LockExclusive(oid, name, cookie, desc string, duration time.Duration, renew bool) (LockResult, error)
	// LockShared is LockExclusive for a shared lock: holders with the
	// same tag coexist.
	LockShared(oid, name, cookie, tag, desc string, duration time.Duration, renew bool) (LockResult, error)
	// Lockers lists the live holders of lock name on oid.
	Lockers(oid, name string) ([]Locker, error)
	// BreakLock removes holder l's lock; it reports whether l held it.
	BreakLock(oid, name string, l Locker) (bool, error)
	Unlock(oid, name, cookie string) error
	// UnlockAndRemove releases the lock and removes oid in one op.
	UnlockAndRemove(oid, name, cookie string) error
}

// Location names an object of a cluster: pool, namespace and name, and
// the snapshot it is read at.
type Location struct {
	Pool, Namespace, Oid string
	// Snap is the id of the snapshot the object is read at: a pool
	// snapshot's, or a self-managed one's (a CephFS snapshot's on its
	// data pools). 0 is the head, the live object (librados'
	// CEPH_NOSNAP, which the implementation maps it to).
	Snap uint64
}

// ObjectStat is what a stat of an object says.
type ObjectStat struct {
	Size    uint64
	ModTime time.Time
	// Version is the object's user version, bumped by every change.
	Version uint64
}

// Pending is a submitted operation. Ready is closed when it has completed;
// Wait returns its result (and may be called again); Latency is the time
// from submission to completion, once it has completed. CopiedVersion is,
// once a copy-from has succeeded, the user version of the source object it
// copied (the OSD gives the destination the source's user version and
// answers with it: one version, even for an object copied in chunks); 0
// for a failed copy-from and for any other operation.
type Pending interface {
	Ready() <-chan struct{}
	Wait() error
	Latency() time.Duration
	CopiedVersion() uint64
}

// Generation is a destination's truncate generation: the truncate_seq and
// truncate_size the OSD stores with every object copied into it. Writes
// carrying an older seq past Size are clipped, so objects written under a
// generation that is later bumped can never be read back.
type Generation struct {
	Seq  uint32
	Size uint64
}

// Fadvise is a set of LIBRADOS_OP_FLAG_FADVISE_* hints (librados.h's
// values; package rados checks them against its headers).
type Fadvise uint32

const (
	FadviseRandom     Fadvise = 0x4
	FadviseSequential Fadvise = 0x8
	FadviseWillNeed   Fadvise = 0x10
	FadviseDontNeed   Fadvise = 0x20
	FadviseNoCache    Fadvise = 0x40
)

// CopyOptions are the arguments of one COPY_FROM2 besides the objects.
type CopyOptions struct {
	// SrcVersion, when non-zero, pins the source object: the copy fails
	// with ERANGE (source newer) or EOVERFLOW (older) if it changed.
	SrcVersion uint64
	SrcFadvise Fadvise
	DstFadvise Fadvise
	// Generation is always sent, with CEPH_OSD_COPY_FROM_FLAG_TRUNCATE_SEQ,
	// so the destination never inherits the source object's truncate_seq.
	// The zero value (0, 0) is right for objects outside any file system.
	Generation Generation
}

// LockResult is what a lock attempt found.
type LockResult int

const (
	Locked     LockResult = iota // taken or renewed
	LockBusy                     // held by another client or cookie
	LockExists                   // already held by this client and cookie
)

// Locker is one holder of a lock.
type Locker struct {
	Client string // "client.4123"
	Cookie string
	Addr   string
}

// AsyncStatter is implemented by Objects whose stats can be in flight
// without a thread waiting for each (package rados): done is called
// exactly once, without blocking, with what Stat would have returned; a
// submission error is returned instead, and done is then not called.
// Callers that stat many objects at once use it when it is there.
type AsyncStatter interface {
	StatAsync(oid string, done func(ObjectStat, error)) error
}
