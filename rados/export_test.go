package rados

// PendingCallbacks is how many copies and stats are registered for a
// completion that has not come: none once every one has completed.
func PendingCallbacks() (copies, stats int) { return copiesInFlight.len(), statsInFlight.len() }

// LockStateRereads is how many lock releases read the lock's state again
// rather than compare with the one read when it was taken or renewed.
func LockStateRereads() int64 { return lockStateRereads.Load() }

// AwaitLockRead waits for the background read of a lock's state started
// when it was taken or renewed; false if there is none.
func (p *Pool) AwaitLockRead(oid, name, cookie string) bool {
	c := p.conn
	c.mu.Lock()
	r := c.lockReads[lockKey{p.Ref(oid), name, cookie}]
	c.mu.Unlock()
	if r == nil {
		return false
	}
	<-r.done
	return true
}
