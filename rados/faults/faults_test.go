package faults_test

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
)

func TestRules(t *testing.T) {
	s := fake.New()
	a := s.Pool("a")
	if err := a.WriteFull("src", []byte("x")); err != nil {
		t.Fatal(err)
	}
	in := faults.New(7,
		faults.Rule{Kind: faults.Write, Nth: 2, Errno: syscall.EIO},
		faults.Rule{Kind: faults.Copy, Object: "bad", Errno: syscall.EPERM},
		faults.Rule{Kind: faults.SubmitCopy, Object: "nosubmit", Errno: syscall.ENOMEM},
		faults.Rule{Kind: faults.Copy, Object: "slow", Delay: 20 * time.Millisecond},
	)
	b := in.Wrap(s.Pool("b"))

	for i, want := range []error{nil, store.ErrIO, nil} {
		if err := b.Write("w", []byte("y"), 0); !errors.Is(err, want) {
			t.Fatalf("write %d: %v, want %v", i+1, err, want)
		}
	}
	p, err := b.Submit("bad", a.Locate("src"), store.CopyOptions{})
	if err != nil || !errors.Is(p.Wait(), store.ErrPermission) {
		t.Fatalf("copy to bad: submit %v", err)
	}
	if s.Pool("b").Has("bad") {
		t.Fatal("an injected copy failure wrote the destination")
	}
	if _, err := b.Submit("nosubmit", a.Locate("src"), store.CopyOptions{}); !errors.Is(err, syscall.ENOMEM) {
		t.Fatalf("submit: %v, want ENOMEM", err)
	}
	start := time.Now()
	p, err = b.Submit("slow", a.Locate("src"), store.CopyOptions{})
	if err != nil || p.Wait() != nil || time.Since(start) < 20*time.Millisecond || !s.Pool("b").Has("slow") {
		t.Fatalf("delayed copy: %v, took %s", err, time.Since(start))
	}
	if in.Hits() != 4 {
		t.Fatalf("hits %d, want 4", in.Hits())
	}
}

func TestProbabilityIsSeeded(t *testing.T) {
	run := func() []bool {
		in := faults.New(42, faults.Rule{Kind: faults.Remove, Probability: 0.5, Errno: syscall.EIO})
		b := in.Wrap(fake.New().Pool("b"))
		var out []bool
		for range 64 {
			err := b.Remove("x")
			out = append(out, errors.Is(err, store.ErrIO))
		}
		return out
	}
	first, second := run(), run()
	failed := 0
	for i := range first {
		if first[i] != second[i] {
			t.Fatal("the same seed gave different faults")
		}
		if first[i] {
			failed++
		}
	}
	if failed == 0 || failed == 64 {
		t.Fatalf("%d of 64 failed with probability 0.5", failed)
	}
}
