package fscopy

import (
	"sync"

	"github.com/radoscp/radoscp/cephfs"
)

// An incremental copy (prune.go) lists each directory it walks once per
// side, not twice: the deletion pass takes the walk's listing of the
// source directory and the type check's listing of the target directory
// (replace.go) instead of listing them again. Listing a directory costs
// the MDS a getattr per subdirectory (libcephfs refreshes each one's
// recursive statistics), so on a tree whose top directory holds hundreds
// of subdirectories the second listings were a third of an incremental
// run's requests.
//
// Why the kept listings are as good as new ones:
//   - the source is a snapshot (pruning needs one), whose listing cannot
//     change;
//   - the target listing is the directory's entries when the walk came
//     to it, which is when rsync's default --delete (--delete-during)
//     lists it too. What the copy added since is in the source listing,
//     so never deleted; what the type check removed since is gone (its
//     removal finds nothing). Only an entry another client put into the
//     target during the copy is not deleted; a mirror target has no
//     other writer.
//   - the target listing is kept by the directory's inode number and used
//     only for the directory the pass holds by that inode (looked up
//     from the root, never following a symlink): a directory another
//     client swapped in meanwhile is listed afresh.
//
// At most maxKeptEntries entries are kept; past that the pass lists.

// maxKeptEntries bounds the entries kept (about 200 bytes each).
const maxKeptEntries = 100_000

// keptListings are an incremental copy's listings kept for its deletion
// pass. The zero value is empty and ready.
type keptListings struct {
	mu      sync.Mutex
	entries int
	src     map[string][]cephfs.Entry // by source path
	dst     map[uint64][]cephfs.Entry // by target directory inode
}

// room reports whether n more entries may be kept (under mu).
func (k *keptListings) room(n int) bool {
	if k.entries+n > maxKeptEntries {
		return false
	}
	k.entries += n
	return true
}

// keepSource keeps the walk's listing of source directory src.
func (k *keptListings) keepSource(src string, es []cephfs.Entry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.room(len(es)) {
		return
	}
	if k.src == nil {
		k.src = map[string][]cephfs.Entry{}
	}
	k.src[src] = es
}

// keepTarget keeps the type check's listing of the target directory with
// inode ino.
func (k *keptListings) keepTarget(ino uint64, es []cephfs.Entry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ino == 0 || !k.room(len(es)) {
		return
	}
	if k.dst == nil {
		k.dst = map[uint64][]cephfs.Entry{}
	}
	k.dst[ino] = es
}

// source and target give a kept listing, if k is not nil
// and keeps one.
func (k *keptListings) source(src string) ([]cephfs.Entry, bool) {
	if k == nil {
		return nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	es, ok := k.src[src]
	return es, ok
}

func (k *keptListings) target(ino uint64) ([]cephfs.Entry, bool) {
	if k == nil {
		return nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	es, ok := k.dst[ino]
	return es, ok
}
