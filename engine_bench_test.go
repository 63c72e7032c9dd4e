package radoscp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// instant is the fake store's pool with copy-from replaced by one that has
// already completed: with it the benchmarks measure the engine alone
// (planning, naming, the window, observers), not the fake's copying.
type instant struct{ *fake.Pool }

type done struct{}

// closed is a completion that has already happened.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (done) Ready() <-chan struct{} { return closed }
func (done) Wait() error            { return nil }
func (done) Latency() time.Duration { return 0 }
func (done) CopiedVersion() uint64  { return 0 }

func (instant) Submit(string, store.Location, store.CopyOptions) (store.Pending, error) {
	return done{}, nil
}

// engineCopy copies n whole 64 KiB objects at window 16 through instant.
func engineCopy(tb testing.TB, n uint64) {
	p := instant{fake.New().Pool("a")}
	src := radoscp.Source{Objects: p, Layout: small, Names: layout.Prefix("src"), Size: n * small.ObjectSize}
	res, err := radoscp.NewEngine(nil, nil).Copy(context.Background(), src, 0,
		truncate.NewRaw(p, small, "dst", 0), 0, src.Size, radoscp.Options{Window: 16})
	if err != nil || res.Objects != n {
		tb.Fatalf("copied %d objects of %d: %v", res.Objects, n, err)
	}
}

// BenchmarkEngineCopy reports time and heap allocations per object
// dispatched through Engine.Copy; the same figures at 1,000 and 100,000
// objects show both are flat in the object count.
func BenchmarkEngineCopy(b *testing.B) {
	for _, n := range []uint64{1_000, 100_000} {
		b.Run(fmt.Sprint("objects=", n), func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			for b.Loop() {
				engineCopy(b, n)
			}
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			objects := float64(b.N) * float64(n)
			b.ReportMetric(float64(elapsed.Nanoseconds())/objects, "ns/object")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/objects, "allocs/object")
		})
	}
}

// millionEnv makes the test binary copy a million objects and exit, so
// that its peak RSS is the engine's and nothing else's.
const millionEnv = "RADOSCP_ENGINE_MILLION_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(millionEnv) != "" {
		engineCopy(fatalTB{}, 1_000_000)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fatalTB is enough of a testing.TB for engineCopy outside a test.
type fatalTB struct{ testing.TB }

func (fatalTB) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// BenchmarkEngineMillionObjects reports the peak RSS of a process that
// copies 1,000,000 objects through the engine (the test binary run again
// for just that).
func BenchmarkEngineMillionObjects(b *testing.B) {
	var rss int64
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), millionEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		rss = max(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	}
	b.ReportMetric(float64(rss)/1024, "peak-RSS-MiB")
}
