package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"strings"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/rados"
)

// fsAnchor says, in the report, what the cephfs scenario's speed-up is over.
const fsAnchor = "the clone anchor: what ceph-mgr's subvolume clones do, reading and writing each file through libcephfs in 8 MiB chunks, one file at a time (clones run 4 at a time by default: the row with 4 files at once)"

// mountBenchDir mounts the file system of a CephFS scenario and settles
// its directory (--fs-dir, by default /PREFIX, cleaned into f); the
// sources are in its src.
func mountBenchDir(cfg config.Config, f *benchFlags) (*benchMount, string, error) {
	if f.fsDir == "" {
		f.fsDir = "/" + f.prefix
	}
	f.fsDir = path.Clean(f.fsDir)
	mnt, err := mountBenchFS(cfg, f.fsName, true, nil)
	if err != nil {
		return nil, "", err
	}
	return mnt, path.Join(f.fsDir, "src"), nil
}

// runFSBench is the cephfs scenario: source files in a directory of their
// own, then each contender in a child process copying them into a new
// directory, which is compared with the sources on the first repeat and
// removed after every run.
func runFSBench(ctx context.Context, cfg config.Config, f benchFlags, plan benchPlan) (benchResult, error) {
	if f.tree != "" {
		return runTreeBench(ctx, cfg, f, plan)
	}
	res := benchResult{Scenario: f.scenario, Machine: describeMachine(), Repeat: f.repeat,
		Files: f.sourceFiles, FileSize: plan.objectSize, Anchor: fsAnchor,
		Title: fmt.Sprintf("CephFS: %d files of %s, radoscp against the clone anchor", f.sourceFiles, fileSizeText(plan.objectSize))}
	mnt, src, err := mountBenchDir(cfg, &f)
	if err != nil {
		return res, err
	}
	defer mnt.close()
	sums, err := ensureFSSources(mnt.fs, f.fsDir, src, f.sourceFiles, plan.objectSize)
	if err != nil {
		return res, err
	}
	defer func() {
		if f.keep {
			return
		}
		if err := removeFSTree(mnt.fs, f.fsDir); err != nil {
			fmt.Fprintf(os.Stderr, "radoscp-bench: cleaning up cephfs:%s: %v\n", f.fsDir, err)
		}
	}()
	runs, verified, err := runFSContenders(ctx, mnt, cfg, f, plan, func(dst string) error { return verifyFSCopy(mnt.fs, dst, sums) }, false)
	if err != nil {
		return res, err
	}
	size := uint64(f.sourceFiles) * plan.objectSize
	for i, c := range plan.contenders {
		row := summarize(c, runs[i], size)
		row.Verified = verified[i]
		res.Rows = append(res.Rows, row)
	}
	res.SpeedUpOver = setSpeedUp(res.Rows)
	return res, nil
}

// runFSContenders runs every contender of plan f.repeat times, each in a
// child process copying FS-DIR/src to a new directory of FS-DIR, checks
// each contender's first copy with check, and removes the copies (but,
// with keepLast, the last repeat's). It returns each contender's runs and
// whether its copy passed the check.
func runFSContenders(ctx context.Context, mnt *benchMount, cfg config.Config, f benchFlags, plan benchPlan,
	check func(dst string) error, keepLast bool) ([][]runRecord, []bool, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("finding this program to run contenders: %w", err)
	}
	runs := make([][]runRecord, len(plan.contenders))
	verified := make([]bool, len(plan.contenders))
	for rep := range f.repeat {
		for i, c := range plan.contenders {
			dst := path.Join(f.fsDir, fmt.Sprintf("%s-%d", strings.ReplaceAll(c.String(), ":", "-"), rep))
			// A copy left by an interrupted run would change what
			// the contender does (cp -r copies into an existing directory).
			if err := removeFSTree(mnt.fs, dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, nil, fmt.Errorf("%s: removing an old copy: %w", c, err)
			}
			before, err := sampleMDS(ctx, cliArgs(cfg), f.fsName)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: reading the MDS's counters: %w", c, err)
			}
			rec, err := runChild(ctx, self, cfg, f, plan, c, dst)
			if err == nil {
				var after mdsSample
				if after, err = sampleMDS(ctx, cliArgs(cfg), f.fsName); err == nil {
					rec.MDS = before.costUntil(after)
				}
			}
			if err == nil && rep == 0 {
				err = check(dst)
				verified[i] = err == nil
			}
			if !keepLast || rep < f.repeat-1 {
				if rerr := removeFSTree(mnt.fs, dst); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
					err = fmt.Errorf("removing the copy: %w", rerr)
				}
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", c, err)
			}
			runs[i] = append(runs[i], rec)
		}
	}
	return runs, verified, nil
}

// fileSizeText is n in MiB when whole, else in bytes.
func fileSizeText(n uint64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// benchMount is a connection with CephFS mounted over it.
type benchMount struct {
	conn  *rados.Conn
	fs    *cephfs.FS
	close func()
}

// mountBenchFS connects and mounts file system name. With sessionOptions
// the connection is the one fscopy needs (cephfs.Session.Options: no
// client object cache, an admin socket of its own); without, it has
// libcephfs's defaults, as ceph-mgr's clones do.
func mountBenchFS(cfg config.Config, name string, sessionOptions bool, extra map[string]string) (*benchMount, error) {
	s, err := cephfs.NewSession()
	if err != nil {
		return nil, err
	}
	opts := map[string]string{}
	if sessionOptions {
		maps.Copy(opts, s.Options())
	}
	maps.Copy(opts, extra)
	conn, err := connectWith(cfg, opts)
	if err != nil {
		s.Close()
		return nil, err
	}
	mfs, err := s.Mount(conn, name)
	if err != nil {
		conn.Close()
		s.Close()
		return nil, err
	}
	m := &benchMount{conn: conn, fs: mfs}
	m.close = func() {
		_ = mfs.Unmount()
		conn.Close()
		_ = s.Close()
	}
	return m, nil
}

// ensureFSSources makes dir and src and writes the n source files of size
// bytes with random data, keeping those already there with that size
// (from a run with --keep). It returns each file's SHA-256 by name.
func ensureFSSources(cfs *cephfs.FS, dir, src string, n int, size uint64) (map[string][sha256.Size]byte, error) {
	for _, d := range []string{dir, src} {
		if err := cfs.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	sums := map[string][sha256.Size]byte{}
	buf := make([]byte, cloneChunk)
	for i := range n {
		name := fmt.Sprintf("file-%04d", i)
		p := path.Join(src, name)
		if st, err := cfs.Stat(p); err == nil && st.IsRegular() && st.Size == size {
			if sums[name], err = hashFSFile(cfs, p, buf); err != nil {
				return nil, err
			}
			continue
		}
		_ = cfs.Unlink(p)
		fl, err := cfs.CreateExclusive(p, 0o644)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		for off := uint64(0); off < size; off += cloneChunk {
			b := buf[:min(cloneChunk, size-off)]
			_, _ = rand.Read(b)
			h.Write(b)
			if err = fl.WriteAt(b, off); err != nil {
				break
			}
		}
		if cerr := fl.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		sums[name] = [sha256.Size]byte(h.Sum(nil))
	}
	return sums, cfs.SyncFS()
}

func hashFSFile(cfs *cephfs.FS, p string, buf []byte) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	fl, err := cfs.OpenRead(p)
	if err != nil {
		return sum, err
	}
	defer fl.Close()
	h := sha256.New()
	for off := uint64(0); ; {
		n, err := fl.ReadAt(buf, off)
		if err != nil {
			return sum, err
		}
		h.Write(buf[:n])
		off += uint64(n)
		if n < len(buf) {
			break
		}
	}
	return [sha256.Size]byte(h.Sum(nil)), nil
}

// verifyFSCopy checks that dst holds exactly the source files, each with
// the source's content.
func verifyFSCopy(cfs *cephfs.FS, dst string, sums map[string][sha256.Size]byte) error {
	entries, err := cfs.ReadDir(dst)
	if err != nil {
		return fmt.Errorf("verifying the copy: %w", err)
	}
	if len(entries) != len(sums) {
		return fmt.Errorf("verifying the copy: cephfs:%s has %d entries, the source %d files", dst, len(entries), len(sums))
	}
	buf := make([]byte, cloneChunk)
	for _, e := range entries {
		want, ok := sums[e.Name]
		if !ok || !e.Stat.IsRegular() {
			return fmt.Errorf("verifying the copy: unexpected %s cephfs:%s", e.Stat.Type(), path.Join(dst, e.Name))
		}
		got, err := hashFSFile(cfs, path.Join(dst, e.Name), buf)
		if err != nil {
			return fmt.Errorf("verifying the copy: %w", err)
		}
		if !bytes.Equal(got[:], want[:]) {
			return fmt.Errorf("verifying the copy: cephfs:%s differs from its source", path.Join(dst, e.Name))
		}
	}
	return nil
}

// removeFSTree removes p and everything under it. The MDS frees the
// removed files' objects in the background.
func removeFSTree(cfs *cephfs.FS, p string) error {
	st, err := cfs.Lstat(p)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return cfs.Unlink(p)
	}
	entries, err := cfs.ReadDir(p)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := removeFSTree(cfs, path.Join(p, e.Name)); err != nil {
			return err
		}
	}
	return cfs.Rmdir(p)
}
