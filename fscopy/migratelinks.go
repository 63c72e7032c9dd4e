package fscopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/radoscp/radoscp/cephfs"
)

// Hard links in a migrate. Replacing one name of an inode with more than
// one link would split it from the others, so the walk only collects such
// files' names by link group; once it is over, a group whose every link
// is under the migrated path is moved as a whole (copied once, then each
// name replaced, see oldInode.relinkAll), and a group with links outside
// it is left behind, named, and the migrate fails. Memory follows the
// files with several links, as the tree copy's tracker (links.go) does.

// migrateGroup is a link group's names the walk met, in walk order, and
// the link count of its latest stat.
type migrateGroup struct {
	names []string
	st    cephfs.Stat
}

// migrateLinks collects one migrate's link groups and what it left behind.
type migrateLinks struct {
	mu     sync.Mutex
	groups map[LinkGroup]*migrateGroup
	order  []LinkGroup
	left   []string // names of files left in their old pool as hard links
}

func (m *migrateLinks) add(g LinkGroup, p string, st cephfs.Stat) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.groups == nil {
		m.groups = map[LinkGroup]*migrateGroup{}
	}
	mg := m.groups[g]
	if mg == nil {
		mg = &migrateGroup{}
		m.groups[g] = mg
		m.order = append(m.order, g)
	}
	mg.names = append(mg.names, p)
	mg.st = st
}

func (m *migrateLinks) leave(names ...string) {
	m.mu.Lock()
	m.left = append(m.left, names...)
	m.mu.Unlock()
}

// leftBehind is the migrate's error for the hard links it left in their
// old pool, naming each.
func (m *migrateLinks) leftBehind() error {
	if len(m.left) == 0 {
		return nil
	}
	sort.Strings(m.left)
	return fmt.Errorf("%w: %d hard-linked files left in their old pool (a link outside the migrated path, or their links changed during the migrate): %s",
		ErrLeftBehind, len(m.left), strings.Join(m.left, ", "))
}

// ErrLeftBehind is a migrate that left hard-linked files in their old pool.
var ErrLeftBehind = errors.New("migrate left files behind")

// migrateGroups moves the link groups the walk collected.
func (t *treeCopy) migrateGroups(ctx context.Context) {
	for _, g := range t.mlinks.order {
		mg := t.mlinks.groups[g]
		if !t.present(g, mg) {
			continue
		}
		// A group already in the pool is left alone whatever names the
		// walk met: a sharded migrate's other workers' link staging
		// names (links to their copies) come and go in the tree.
		if l, err := t.c.fs.Layout(mg.names[0]); err == nil && l.Pool == t.c.opts.Pool {
			for _, p := range mg.names {
				t.record(Report{Src: p, Dst: p, Outcome: Unchanged, Reason: "already in pool " + l.Pool})
			}
			continue
		}
		if uint32(len(mg.names)) != mg.st.Nlink {
			reason := fmt.Sprintf("hard link (%d links, %d under cephfs:%s): migrating its names here would split it from the others; left in its old pool",
				mg.st.Nlink, len(mg.names), t.root)
			t.mlinks.leave(mg.names...)
			for _, p := range mg.names {
				t.record(Report{Src: p, Dst: p, Outcome: Skipped, Size: mg.st.Size, Reason: reason})
			}
			continue
		}
		t.goFile(ctx, mg.st.Size, func() {
			if ctx.Err() == nil {
				t.migrateGroup(ctx, mg)
			}
		})
	}
}

// migrateGroup moves one link group: the first name is copied, every
// other name replaced with a link to the copy.
func (t *treeCopy) migrateGroup(ctx context.Context, mg *migrateGroup) {
	p, others := mg.names[0], mg.names[1:]
	r := t.migrateFile(ctx, p, mg.st, others)
	r.Size = mg.st.Size
	t.record(r)
	if r.Outcome == Skipped {
		t.mlinks.leave(mg.names...)
	}
	for _, q := range others {
		o := Report{Src: q, Dst: q, Outcome: r.Outcome, Reason: r.Reason, DryRun: r.DryRun}
		switch {
		case r.Outcome == Copied:
			o.Outcome, o.Reason = HardLink, "hard link to cephfs:"+p
		case r.Outcome == Failed:
			o.Err = fmt.Errorf("hard link to cephfs:%s, which failed", p)
		}
		t.record(o)
	}
}

// present drops the names of mg that are gone since the walk met them (or
// are another inode now), and takes the group's link count afresh: names
// come and go during a migrate (its own recovery names, a sharded
// migrate's other workers' link staging names). It reports whether any
// name is left.
func (t *treeCopy) present(g LinkGroup, mg *migrateGroup) bool {
	names := mg.names[:0]
	for _, p := range mg.names {
		st, err := t.c.fs.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && st.Ino != g.Ino) {
			continue
		}
		names = append(names, p) // on another error, the copy reports it
		if err == nil {
			mg.st = st
		}
	}
	mg.names = names
	return len(names) > 0
}
