package fscopy

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sync/singleflight"

	"github.com/radoscp/radoscp/store"
)

// CephFS quotas (ceph.quota.max_bytes, max_files on a directory) are
// enforced by clients: one refuses a write or a size that would take a
// quota directory's rbytes over max_bytes, and a create when its rentries
// reach max_files (EDQUOT). Copy-from writes the data pool directly, past
// any client, so a copy checks them itself, against every quota directory
// above the destination: the file's entry and its whole size are taken
// from the quota before its staging file is created, and so before any of
// its data is copied or it is placed. The rstats a client checks against
// lag behind the writes (the MDS gathers them lazily), so each quota
// directory's rbytes and rentries are read once, when the copy first
// places something under it, and what the copy adds since is counted
// here: the copy refuses at least whatever a client would have refused.

// ErrDirQuota is a copy refused because it would take a CephFS
// directory over its quota (ceph.quota.max_bytes or max_files). It also
// matches syscall.EDQUOT. A tree copy stops at the first one, as cp -a
// and rsync do.
var ErrDirQuota = errors.New("directory quota exceeded")

// quotas are the quota directories a copy has met, by path (nil: a
// directory with no quota), each with what the copy added under it.
type quotas struct {
	mu    sync.Mutex
	dirs  map[string]*quotaDir
	fresh map[string]bool // directories this copy made: no quota set yet
	// reads: the files of one directory copied at once wait for one
	// read of each directory above them, not one each.
	reads singleflight.Group
}

type quotaDir struct {
	dir                string
	maxBytes, maxFiles uint64 // 0: none
	rbytes, rentries   uint64 // ceph.dir.rbytes, rentries when first read
	bytes, files       int64  // added by this copy since
}

// quotaHold is what reserve took from every quota above dir.
type quotaHold struct {
	dir          string
	bytes, files int64
}

// reserve takes bytes and files from every quota of dir and its
// ancestors, or refuses (ErrDirQuota) and takes nothing. A client's rule:
// rbytes + bytes > max_bytes, or rentries + files > max_files, refuses.
func (c *Copier) reserve(dir string, bytes, files int64) (quotaHold, error) {
	h := quotaHold{dir: dir, bytes: bytes, files: files}
	over, err := c.quotasOver(dir)
	if err != nil {
		return quotaHold{}, err
	}
	c.quotas.mu.Lock()
	defer c.quotas.mu.Unlock()
	for _, q := range over {
		if err := q.check(bytes, files); err != nil {
			return quotaHold{}, err
		}
	}
	for _, q := range over {
		q.bytes += bytes
		q.files += files
	}
	return h, nil
}

// quotasOver are the quota directories of dir and its ancestors.
func (c *Copier) quotasOver(dir string) ([]*quotaDir, error) {
	var over []*quotaDir
	for d := path.Clean(dir); ; d = path.Dir(d) {
		q, err := c.quotaOf(d)
		if err != nil {
			return nil, err
		}
		if q != nil {
			over = append(over, q)
		}
		if d == "/" || d == "." {
			return over, nil
		}
	}
}

// release gives back what a hold took, for a staging file removed (or a
// file a migrate replaced): its bytes and entry are gone again.
func (c *Copier) release(h quotaHold) {
	if h.dir == "" {
		return
	}
	c.quotas.mu.Lock()
	defer c.quotas.mu.Unlock()
	for d := path.Clean(h.dir); ; d = path.Dir(d) {
		if q := c.quotas.dirs[d]; q != nil {
			q.bytes -= h.bytes
			q.files -= h.files
		}
		if d == "/" || d == "." {
			break
		}
	}
}

// madeDir notes a directory this copy created: it has no quota (a tree
// copy sets the source's at the end), so it is not asked for one.
func (c *Copier) madeDir(dir string) {
	c.quotas.mu.Lock()
	defer c.quotas.mu.Unlock()
	if c.quotas.fresh == nil {
		c.quotas.fresh = map[string]bool{}
	}
	c.quotas.fresh[path.Clean(dir)] = true
}

// quotaOf reads (once) the quota of directory dir and, if it has one,
// its rstats: nil when it has none.
func (c *Copier) quotaOf(dir string) (*quotaDir, error) {
	c.quotas.mu.Lock()
	q, known := c.quotas.dirs[dir]
	known = known || c.quotas.fresh[dir]
	c.quotas.mu.Unlock()
	if known {
		return q, nil
	}
	v, err, _ := c.quotas.reads.Do(dir, func() (any, error) { return c.readQuotaOf(dir) })
	if err != nil {
		return nil, err
	}
	return v.(*quotaDir), nil
}

// readQuotaOf is quotaOf's read, remembered.
func (c *Copier) readQuotaOf(dir string) (*quotaDir, error) {
	var q *quotaDir
	maxBytes, maxFiles, err := c.readQuota(dir)
	if err != nil {
		return nil, fmt.Errorf("read the quota of cephfs:%s: %w", dir, err)
	}
	if maxBytes != "" || maxFiles != "" {
		if q, err = c.readQuotaDir(dir, maxBytes, maxFiles); err != nil {
			return nil, err
		}
	}
	c.quotas.mu.Lock()
	defer c.quotas.mu.Unlock()
	if c.quotas.dirs == nil {
		c.quotas.dirs = map[string]*quotaDir{}
	}
	if have, ok := c.quotas.dirs[dir]; ok {
		return have, nil // read by another file's copy meanwhile
	}
	c.quotas.dirs[dir] = q
	return q, nil
}

// check refuses bytes and files more under q, as a client would with the
// rstats q read, counting what this copy added since.
func (q *quotaDir) check(bytes, files int64) error {
	usedBytes := int64(q.rbytes) + q.bytes
	if q.maxBytes != 0 && bytes > 0 && usedBytes+bytes > int64(q.maxBytes) {
		return quotaError(q.dir, fmt.Sprintf("%s=%d: %d bytes are used under it (ceph.dir.rbytes, with what this copy added) and %d more would exceed it",
			xattrMaxBytes, q.maxBytes, usedBytes, bytes))
	}
	usedFiles := int64(q.rentries) + q.files
	if q.maxFiles != 0 && files > 0 && usedFiles+files > int64(q.maxFiles) {
		return quotaError(q.dir, fmt.Sprintf("%s=%d: %d entries are under it (ceph.dir.rentries, with what this copy added) and %d more would exceed it",
			xattrMaxFiles, q.maxFiles, usedFiles, files))
	}
	return nil
}

func quotaError(dir, what string) error { return &QuotaError{Dir: dir, What: what} }

// QuotaError is a refusal by the quota of directory Dir; it matches
// ErrDirQuota and syscall.EDQUOT.
type QuotaError struct {
	Dir  string
	What string // which quota, and how it is exceeded
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("cephfs:%s is over its quota (%s): %s", e.Dir, e.What, store.ErrnoName(syscall.EDQUOT))
}

func (e *QuotaError) Is(target error) bool {
	return target == ErrDirQuota || target == syscall.EDQUOT
}

// clientQuota marks an EDQUOT that libcephfs gave (its own check, with
// the rstats it has, refused a size) as a directory quota's.
func clientQuota(dir string, err error) error {
	if store.ErrnoOf(err) != syscall.EDQUOT || errors.Is(err, ErrDirQuota) {
		return err
	}
	return &QuotaError{Dir: dir, What: "the client refused a size: " + err.Error() + "; the quota is on it or a directory above it"}
}

// readQuotaDir is the quota directory dir with the given quotas, and the
// rstats it has now.
func (c *Copier) readQuotaDir(dir, maxBytes, maxFiles string) (*quotaDir, error) {
	q := &quotaDir{dir: dir}
	rbytes, err := c.readVxattr(dir, "ceph.dir.rbytes")
	if err != nil {
		return nil, fmt.Errorf("read the rstats of quota directory cephfs:%s: %w", dir, err)
	}
	rentries, err := c.readVxattr(dir, "ceph.dir.rentries")
	if err != nil {
		return nil, fmt.Errorf("read the rstats of quota directory cephfs:%s: %w", dir, err)
	}
	for _, f := range []struct {
		name, v string
		to      *uint64
	}{{xattrMaxBytes, maxBytes, &q.maxBytes}, {xattrMaxFiles, maxFiles, &q.maxFiles},
		{"ceph.dir.rbytes", rbytes, &q.rbytes}, {"ceph.dir.rentries", rentries, &q.rentries}} {
		if f.v == "" {
			continue
		}
		if *f.to, err = strconv.ParseUint(f.v, 10, 64); err != nil {
			return nil, fmt.Errorf("cephfs:%s: %s = %q: expected a number", dir, f.name, f.v)
		}
	}
	return q, nil
}
