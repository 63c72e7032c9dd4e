package truncate_test

import (
	"errors"
	"fmt"
	"strconv"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/truncate/desttest"
)

func TestConformanceFakeRaw(t *testing.T) {
	p := fake.New().Pool("a")
	desttest.Run(t, desttest.Subject{
		Layout: striped,
		New: func(t *testing.T) radoscp.Destination {
			return truncate.NewRaw(p, striped, "raw-"+t.Name(), 0)
		},
		Trims: true,
	}, p)
}

func TestConformanceFakeCephFS(t *testing.T) {
	p := fake.New().Pool("data")
	files := map[radoscp.Destination]*desttest.FakeFile{}
	desttest.Run(t, desttest.Subject{
		Layout: striped,
		New: func(t *testing.T) radoscp.Destination {
			f := desttest.NewFakeFile()
			d, err := truncate.NewCephFS(f, p, striped)
			if err != nil {
				t.Fatal(err)
			}
			files[d] = f
			return d
		},
		Reopen: func(t *testing.T, old radoscp.Destination, limit uint64) radoscp.Destination {
			f := files[old]
			d, err := truncate.ResumeCephFS(f, p, striped, limit)
			if err != nil {
				t.Fatal(err)
			}
			files[d] = f
			return d
		},
		Visible: func(t *testing.T, d radoscp.Destination) uint64 {
			n, _ := files[d].Size()
			return n
		},
		Records: true,
	}, p)
}

// The striped destination on the fake: its metadata, compare-and-set size
// and locks are store operations, which the fake implements.
func TestConformanceFakeStriper(t *testing.T) {
	p := fake.New().Pool("b")
	desttest.Run(t, striperSubject(p, p, striped, "striped"), p)
}

// striperSubject is the striped destinations in p named base-1, base-2,
// ...; reader reads their striper.size as another client would.
func striperSubject(p, reader store.Objects, l layout.Layout, base string) desttest.Subject {
	n := 0
	names := map[radoscp.Destination]string{}
	open := func(t *testing.T, name string) radoscp.Destination {
		d, err := truncate.OpenStriper(p, name, l)
		if err != nil {
			t.Fatal(err)
		}
		names[d] = name
		return d
	}
	return desttest.Subject{
		Layout: l,
		New: func(t *testing.T) radoscp.Destination {
			n++
			return open(t, fmt.Sprintf("%s-%d", base, n))
		},
		Reopen: func(t *testing.T, old radoscp.Destination, _ uint64) radoscp.Destination {
			return open(t, names[old])
		},
		Visible: func(t *testing.T, d radoscp.Destination) uint64 {
			v, err := reader.Xattr(layout.Striper(names[d]).ObjectName(0), "striper.size")
			if err != nil {
				t.Fatal(err)
			}
			size, err := strconv.ParseUint(string(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return size
		},
		Records: true, Publishes: true, Trims: true,
	}
}

// A striped destination can be fault-injected: a failing size update
// fails Publish with its errno, and the size another reader sees stays.
func TestStriperPublishFault(t *testing.T) {
	p := fake.New().Pool("b")
	in := faults.New(1, faults.Rule{Kind: faults.Xattr, Errno: syscall.EIO})
	d, err := truncate.OpenStriper(in.Wrap(p), "faulted", striped)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = d.Publish(striped.SetSize())
	if !errors.Is(err, store.ErrIO) || in.Hits() == 0 {
		t.Fatalf("publish: %v after %d injected faults; want EIO from the fault", err, in.Hits())
	}
	if v, _ := p.Xattr(layout.Striper("faulted").ObjectName(0), "striper.size"); string(v) != "0" {
		t.Fatalf("striper.size %q after a failed publish, want 0", v)
	}
}
