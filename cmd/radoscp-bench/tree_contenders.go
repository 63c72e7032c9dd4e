package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/config"
)

// cloneTree is the clone anchor for a tree, as ceph-mgr's subvolume
// clones copy one: directories are made as they are met, each regular
// file is copied in cloneChunk reads and writes through libcephfs (files
// at once), symlinks are re-created, and every path gets its source's
// mode, owner and times (a directory's once its contents are copied).
func cloneTree(ctx context.Context, cfs *cephfs.FS, src, dst string, files int) (runRecord, error) {
	rec := runRecord{Window: files}
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(files)
	type dirAttrs struct {
		path string
		st   cephfs.Stat
	}
	var dirs []dirAttrs
	var walk func(src, dst string, st cephfs.Stat) error
	walk = func(src, dst string, st cephfs.Stat) error {
		if err := cfs.Mkdir(dst, st.Perm()); err != nil {
			return err
		}
		dirs = append(dirs, dirAttrs{dst, st})
		entries, err := cfs.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			from, to := path.Join(src, e.Name), path.Join(dst, e.Name)
			switch {
			case e.Stat.IsDir():
				if err := walk(from, to, e.Stat); err != nil {
					return err
				}
			case e.Stat.IsSymlink():
				target, err := cfs.Readlink(from)
				if err == nil {
					err = cfs.Symlink(target, to)
				}
				if err == nil {
					err = cfs.SetAttrs(to, statAttrs(e.Stat), true)
				}
				if err != nil {
					return err
				}
			case e.Stat.IsRegular():
				st := e.Stat
				g.Go(func() error {
					t := time.Now()
					n, err := copyChunks(ctx, cfs, from, to, st.Perm())
					if err == nil {
						err = cfs.SetAttrs(to, statAttrs(st), false)
					}
					mu.Lock()
					defer mu.Unlock()
					rec.ClientBytes += 2 * n
					if err == nil {
						rec.LatencyMs = append(rec.LatencyMs, msOf(time.Since(t)))
					}
					return err
				})
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return nil
	}
	st, err := cfs.Lstat(src)
	if err != nil {
		return rec, err
	}
	err = walk(src, dst, st)
	if gerr := g.Wait(); err == nil {
		err = gerr
	}
	for i := len(dirs) - 1; i >= 0 && err == nil; i-- {
		err = cfs.SetAttrs(dirs[i].path, statAttrs(dirs[i].st), false)
	}
	return rec, err
}

func statAttrs(st cephfs.Stat) cephfs.Attrs {
	return cephfs.Attrs{Mode: st.Perm(), UID: st.UID, GID: st.GID, Atime: st.Atime, Mtime: st.Mtime}
}

// cpThroughFuse is the cp -a contender: it mounts the file system with
// ceph-fuse (in the foreground, as a child), runs cp -a from src to dst
// through the mount and unmounts, which returns once ceph-fuse has
// flushed what it buffered. Its time runs from cp's start to ceph-fuse's
// exit; its CPU is cp's and ceph-fuse's over that time (ceph-fuse is
// the client here).
func cpThroughFuse(ctx context.Context, cfg config.Config, fsName, src, dst string, delay map[string]string) (runRecord, error) {
	var rec runRecord
	mnt, err := os.MkdirTemp("", "radoscp-bench-fuse-")
	if err != nil {
		return rec, err
	}
	defer os.Remove(mnt)
	args := append(cliArgs(cfg), "-f", "--pid-file=")
	for k, v := range delay {
		args = append(args, "--"+k+"="+v)
	}
	args = append(args, mnt)
	if fsName != "" {
		args = append([]string{"--client_fs", fsName}, args...)
	}
	fuse := exec.Command("ceph-fuse", args...)
	var fuseOut bytes.Buffer
	fuse.Stdout, fuse.Stderr = &fuseOut, &fuseOut
	if err := fuse.Start(); err != nil {
		return rec, fmt.Errorf("ceph-fuse (Debian's ceph-fuse package): %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- fuse.Wait() }()
	unmounted := false
	defer func() {
		if !unmounted {
			_ = exec.Command("umount", mnt).Run()
			<-exited
		}
	}()
	if err := waitForMount(mnt, exited, &fuseOut); err != nil {
		unmounted = true
		return rec, err
	}
	before, err := procCPUSeconds(fuse.Process.Pid)
	if err != nil {
		return rec, err
	}
	start := time.Now()
	cp := exec.CommandContext(ctx, "cp", "-a", mnt+src, mnt+dst)
	if out, err := cp.CombinedOutput(); err != nil {
		return rec, fmt.Errorf("cp -a: %w: %s", err, strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
		return rec, fmt.Errorf("umount %s: %w: %s", mnt, err, strings.TrimSpace(string(out)))
	}
	unmounted = true
	if err := <-exited; err != nil {
		return rec, fmt.Errorf("ceph-fuse: %w: %s", err, strings.TrimSpace(fuseOut.String()))
	}
	rec.Seconds = time.Since(start).Seconds()
	fuseCPU := cpuSeconds(*fuse.ProcessState.SysUsage().(*syscall.Rusage)) - before
	rec.CPUSeconds = cpuSeconds(*cp.ProcessState.SysUsage().(*syscall.Rusage)) + fuseCPU
	rec.MaxRSSBytes = uint64(fuse.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10
	rec.ClientMeasured = false
	return rec, nil
}

// waitForMount waits until mnt is a mount point (its device differs from
// its parent's), or ceph-fuse exits.
func waitForMount(mnt string, exited <-chan error, out *bytes.Buffer) error {
	parent, err := os.Stat(filepath.Dir(mnt))
	if err != nil {
		return err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("ceph-fuse exited before mounting: %v: %s", err, strings.TrimSpace(out.String()))
		default:
		}
		if st, err := os.Stat(mnt); err == nil {
			if st.Sys().(*syscall.Stat_t).Dev != parent.Sys().(*syscall.Stat_t).Dev {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ceph-fuse did not mount %s within a minute: %s", mnt, strings.TrimSpace(out.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// procCPUSeconds is the user and system CPU time process pid has used so
// far (fields 14 and 15 of /proc/PID/stat, in clock ticks of 1/100 s).
func procCPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q: too few fields", pid, s)
	}
	utime, err1 := strconv.ParseUint(fields[11], 10, 64)
	stime, err2 := strconv.ParseUint(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q: unreadable CPU times", pid, s)
	}
	return float64(utime+stime) / 100, nil
}
