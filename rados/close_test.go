package rados_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// Close under every kind of call at once: synchronous reads, writes,
// stats (waited for and asynchronous), xattr, lock and checksum calls and
// copy-froms, on a client whose OSD replies are delayed so that calls are
// in flight when Close begins.
// Every call must either succeed, having finished before Close returned
// (Close waited for it: no I/O context is destroyed under a call), or fail
// with ESHUTDOWN; none may crash, and under -race none may race Close.
// The test proves its condition: some calls were running when Close
// began and succeeded after that.
func TestCloseWaitsForEveryCall(t *testing.T) {
	admin := connect(t, rados.ConnConfig{})
	setup := openPool(t, admin, "radoscp-a", "")
	name := test.UniqueName(t)
	src := name + ".src"
	if err := setup.WriteFull(src, []byte("source")); err != nil {
		t.Fatal(err)
	}
	const workers = 12
	for w := range workers {
		oid := fmt.Sprintf("%s.%d", name, w)
		if err := setup.WriteFull(oid, []byte("xy")); err != nil {
			t.Fatal(err)
		}
		if err := setup.SetXattr(oid, "k", []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		setup.Remove(src)
		for w := range workers {
			setup.Remove(fmt.Sprintf("%s.%d", name, w))
			setup.Remove(fmt.Sprintf("%s.copy%d", name, w))
		}
	})

	c, err := rados.Connect(rados.ConnConfig{ConfPath: test.Conf(t), Options: map[string]string{
		"ms_inject_delay_type": "osd", "ms_inject_delay_probability": "1", "ms_inject_delay_max": "0.05",
	}})
	if err != nil {
		t.Fatal(err)
	}
	p := openPool(t, c, "radoscp-a", "")
	var closeBegun, closeReturned atomic.Bool
	var overlapped, shutdown, calls atomic.Int64
	calls1 := []func(oid string) error{
		func(oid string) error { return p.Write(oid, []byte("x"), 0) },
		func(oid string) error { _, err := p.Stat(oid); return err },
		func(oid string) error {
			got := make(chan error, 1)
			if err := p.StatAsync(oid, func(_ store.ObjectStat, err error) { got <- err }); err != nil {
				return err
			}
			return <-got
		},
		func(oid string) error { _, err := p.Read(oid, make([]byte, 8), 0); return err },
		func(oid string) error { return p.SetXattr(oid, "k", []byte("v")) },
		func(oid string) error { _, err := p.Xattr(oid, "k"); return err },
		func(oid string) error { _, err := p.Xattrs(oid); return err },
		func(oid string) error { _, err := p.Checksum(oid, 0, 1); return err },
		func(oid string) error { _, err := p.LockShared(oid, "l", "c", "t", "", 0, true); return err },
		func(oid string) error { _, err := p.Lockers(oid, "l"); return err },
		func(oid string) error { return p.WriteFull(oid, []byte("xy")) },
		func(oid string) error {
			cp, err := p.CopyFrom(oid[:len(name)]+".copy"+oid[len(name)+1:], p, src, store.CopyOptions{})
			if err != nil {
				return err
			}
			return cp.Wait()
		},
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			oid := fmt.Sprintf("%s.%d", name, w)
			for i := 0; ; i++ {
				before := closeBegun.Load()
				err := calls1[(w+i)%len(calls1)](oid)
				calls.Add(1)
				switch {
				case errors.Is(err, syscall.ESHUTDOWN):
					shutdown.Add(1)
					return
				case err != nil:
					errs <- fmt.Errorf("worker %d, call %d: %w", w, i, err)
					return
				case closeReturned.Load():
					errs <- fmt.Errorf("worker %d, call %d succeeded after Close returned", w, i)
					return
				case !before && closeBegun.Load():
					overlapped.Add(1)
				}
			}
		}()
	}
	// Let every worker get calls going, then close under them.
	for calls.Load() < 3*workers {
		runtimeGosched()
	}
	closeBegun.Store(true)
	c.Close()
	closeReturned.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if shutdown.Load() != workers {
		t.Errorf("%d of %d workers saw ESHUTDOWN after Close", shutdown.Load(), workers)
	}
	if overlapped.Load() == 0 {
		t.Fatal("no call was running when Close began: the test proved nothing")
	}
	t.Logf("%d calls, %d running across the start of Close and waited for", calls.Load(), overlapped.Load())
}

func runtimeGosched() { runtime.Gosched() }
