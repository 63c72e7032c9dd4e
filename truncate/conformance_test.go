package truncate_test

import (
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/rados/fake"
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
