package subvolume

import (
	"fmt"
	"path"
	"time"
)

// Sharded clones. N workers (Request.Shard K/N), started at once, each
// copy their share of the snapshot's tree into the target's staging
// directory (fscopy's sharded tree copy); the first to find no target
// creates and marks it, the others wait for its mark and continue into
// it. A worker leaves the tree in the staging directory and the target
// closed; a failed worker leaves the target for the others. The final
// pass (Shard.Finish) needs the marked target: it checks and completes
// the tree (fscopy's final pass), moves it in and finishes the root as
// an unsharded clone does; what it found changed in the source is its
// error, with the clone complete.

// markWait is how long a worker waits for the mark of a target another
// worker of the same clone has just created.
const markWait = 30 * time.Second

// shardTarget is target for a sharded clone's run when the target
// subvolume exists at p: it continues a target marked as a clone of src.
// A worker gives the worker that created it a moment to mark it.
func (c *Cloner) shardTarget(r Request, src source, p string) (string, bool, error) {
	deadline := time.Now().Add(markWait)
	for {
		mark, err := c.fs.GetXattr(p, xattrClone)
		switch {
		case err == nil && string(mark) == src.mark:
			if r.Shard.Finish {
				if _, err := c.fs.Lstat(path.Join(p, stagingDir)); err != nil {
					if state, _ := c.fs.GetXattr(p, xattrState); string(state) == stateCopy {
						return "", false, fmt.Errorf("%w: target subvolume %s%s has no staging directory: no worker has copied anything; nothing was written",
							ErrUsage, r.Target, inGroup(r.TargetGroup))
					}
				}
			}
			return p, true, nil
		case err == nil:
			return "", false, fmt.Errorf("%w: target subvolume %s%s is a clone of another snapshot (%s); nothing was written",
				ErrUsage, r.Target, inGroup(r.TargetGroup), mark)
		case r.Shard.Finish || time.Now().After(deadline):
			return "", false, fmt.Errorf("%w: target subvolume %s%s exists (at cephfs:%s) and is no clone of %s; nothing was written",
				ErrUsage, r.Target, inGroup(r.TargetGroup), p, src)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
