package objcopy

// CheckAll refuses, reading only, what Copy would refuse of reqs run in
// order, before any of them runs: a batch whose copy k would be refused is
// refused with nothing written. It returns the index of the first refused
// request and its error (an InvalidError for invalid input), or -1, nil.
//
// A request none of whose objects an earlier request writes gets every
// check a dry run of it makes, but for the full pool (one monitor command
// each; its copy checks it when it comes): its source and destination
// pools, snapshot and layout, the source's existence and range, the
// destination as it will be opened (a striped object that is not one, a
// raw lock object that is someone else's, --no-clobber, --resume, objects
// shared with the source, --offload-only) and that it is not its own
// source. A request whose source or destination an earlier request
// writes (the same pool, namespace and name) is checked for what that
// copy cannot change: not its own source, its pools, snapshot and layout,
// --no-clobber onto an earlier request's destination, and with a source
// no earlier request writes, the source's existence and range. The rest of
// its checks run when its copy comes, as Copy runs them.
func (c *Copier) CheckAll(reqs []Request) (int, error) {
	written := map[objectSet]bool{}
	for i, req := range reqs {
		req.DryRun = true
		srcWritten := req.Snap == "" && written[objectSet{req.Src.Pool, req.Src.Namespace, req.Src.Name}]
		dst := objectSet{req.Dst.Pool, req.Dst.Namespace, req.Dst.Name}
		if err := c.checkAhead(req, srcWritten, written[dst]); err != nil {
			return i, err
		}
		written[dst] = true
	}
	return -1, nil
}

// objectSet names the objects of a rados: or striper: address. A raw
// prefix's and a striped object's of one name count as one: they can
// share objects (a raw object number past 2^32 is named as a striped
// object's).
type objectSet struct{ pool, ns, name string }

// checkAhead is CheckAll's check of one dry-run request, whose source or
// destination an earlier request may write first.
func (c *Copier) checkAhead(req Request, srcWritten, dstWritten bool) error {
	if err := ownObjects(req); err != nil {
		return err
	}
	if !srcWritten && !dstWritten {
		lock := c.checkLockObjectEarly(req)
		defer lock.wait()
		src, _, err := c.openSource(req)
		if err != nil {
			return err
		}
		length, err := copyLength(src, req)
		if err != nil {
			return err
		}
		if _, err := c.precheck(req, src, length, lock); err != nil {
			return err
		}
		_, _, _, err = c.dryRunDestination(req, length)
		return err
	}
	if srcWritten {
		if _, _, err := c.openSourcePool(req); err != nil {
			return err
		}
	} else {
		src, _, err := c.openSource(req)
		if err != nil {
			return err
		}
		if _, err := copyLength(src, req); err != nil {
			return err
		}
	}
	if _, _, err := c.destinationPool(req); err != nil {
		return err
	}
	if dstWritten && req.NoClobber {
		return usage("destination %s is an earlier copy's destination and --no-clobber is set", req.Dst)
	}
	return nil
}
