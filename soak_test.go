package radoscp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
)

// Soak: copies of random sizes, offsets, windows and layouts, each with
// random faults, each checked against every promise a copy makes. The CI
// run is short; make soak runs it long (RADOSCP_SOAK_ITERATIONS, and
// RADOSCP_SOAK_SEED to replay a logged failure).

// soakCase is one random copy: the destination holds eof bytes of old
// data before it, and the copy writes length bytes of the source from
// srcOff at dstOff.
type soakCase struct {
	src, dst                layout.Layout
	srcSize, srcOff, length uint64
	eof, dstOff             uint64
	window                  int
	chunk                   uint64
	rules                   []faults.Rule
	srcData, oldData        []byte
	srcNames, dstNames      layout.Namer
	dstPrefix               string
}

func (c soakCase) String() string {
	return fmt.Sprintf("src %v size %d off %d, dst %v eof %d off %d, length %d, window %d, chunk %d, %d fault rules",
		c.src, c.srcSize, c.srcOff, c.dst, c.eof, c.dstOff, c.length, c.window, c.chunk, len(c.rules))
}

const kib = 1 << 10

// quiet drops the engine's log (the fallback warning of every copy whose
// faults include EOPNOTSUPP).
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// randomLayout is a small valid layout: 64 KiB to 256 KiB stripe units,
// one to three objects per stripe, one to four stripe units per object.
func randomLayout(r *rand.Rand) layout.Layout {
	su := uint64(64*kib) << r.IntN(3)
	return layout.Layout{StripeUnit: su, StripeCount: uint64(1 + r.IntN(3)), ObjectSize: su * uint64(1+r.IntN(4))}
}

// newSoakCase draws a copy. Offsets are 64 KiB-aligned or not, at random,
// and half the copies share one layout so that copy-from is used.
func newSoakCase(r *rand.Rand, name string, faulty bool) soakCase {
	c := soakCase{src: randomLayout(r), window: r.IntN(12), dstPrefix: name}
	c.dst = c.src
	if r.IntN(2) == 0 {
		c.dst = randomLayout(r)
	}
	align := func(n uint64) uint64 {
		if r.IntN(2) == 0 {
			return n / (64 * kib) * (64 * kib)
		}
		return n
	}
	c.srcSize = uint64(r.IntN(6 << 20))
	c.srcOff = align(uint64(r.Int64N(int64(c.srcSize + 1))))
	c.length = uint64(r.Int64N(int64(c.srcSize - c.srcOff + 1)))
	switch r.IntN(3) {
	case 0: // a new file
	case 1: // appending to one
		c.eof = uint64(r.IntN(2 << 20))
		c.dstOff = c.eof + align(uint64(r.IntN(1<<20)))
	case 2: // into the middle of one
		c.eof = uint64(1 + r.IntN(3<<20))
		c.dstOff = align(uint64(r.Int64N(int64(c.eof))))
	}
	if c.dstOff == 0 && c.eof == 0 {
		c.dstOff = align(uint64(r.IntN(1 << 20)))
	}
	c.chunk = uint64(64*kib) << r.IntN(6)
	c.srcData = randomData(r.Uint64(), int(c.srcSize))
	c.oldData = randomData(r.Uint64(), int(c.eof))
	c.srcNames, c.dstNames = layout.Prefix(name+"-src"), layout.Prefix(name+"-dst")
	if !faulty {
		return c
	}
	kinds := []faults.Kind{faults.Copy, faults.SubmitCopy, faults.Read, faults.Write, faults.Stat, faults.Truncate, faults.Remove}
	errnos := []syscall.Errno{syscall.EIO, syscall.EPERM, syscall.ETIMEDOUT, syscall.ENOSPC, syscall.EOPNOTSUPP}
	for range r.IntN(4) {
		rule := faults.Rule{Kind: kinds[r.IntN(len(kinds))], Errno: errnos[r.IntN(len(errnos))]}
		if r.IntN(2) == 0 {
			rule.Nth = 1 + r.IntN(20)
		} else {
			rule.Probability = r.Float64() * 0.2
		}
		if r.IntN(3) == 0 {
			rule.Errno = 0
			rule.Delay = time.Duration(r.IntN(300)) * time.Microsecond
		}
		c.rules = append(c.rules, rule)
	}
	return c
}

// checkSoak checks every promise of one finished copy: the result is
// consistent; the copied prefix is the source's; the old data outside it
// is intact; nothing is readable past the published EOF; and a copy that
// failed is finished by resuming it from where it stopped.
func checkSoak(t *testing.T, c soakCase, dst store.Objects, res radoscp.Result, err error, resume func(srcOff, dstOff, length uint64) radoscp.Result) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%v\nresult %+v, err %v\n"+format, append([]any{c, res, err}, args...)...)
	}
	if err == nil && res.Bytes != c.length || res.Bytes > c.length {
		fail("copied %d bytes", res.Bytes)
	}
	wantEOF := c.eof
	if res.Bytes > 0 {
		wantEOF = max(c.eof, c.dstOff+res.Bytes)
	}
	if res.PublishedEOF != wantEOF {
		fail("published EOF %d, want %d", res.PublishedEOF, wantEOF)
	}
	got := readFile(t, dst, c.dst, c.dstNames, 0, res.PublishedEOF)
	want := make([]byte, res.PublishedEOF)
	copy(want, c.oldData)
	if res.Bytes > 0 {
		copy(want[c.dstOff:], c.srcData[c.srcOff:c.srcOff+res.Bytes])
	}
	if res.Serial && err != nil {
		// Known engine limitation (reported in issue 7): a client write
		// that spans several objects and fails part-way leaves the part
		// before the failure written, although the op counts as not
		// copied. Into existing data that part is torn: each byte is
		// the old one or the source's, and it lies within the one failed
		// op just past the copied prefix. Anything else is a failure.
		from := c.dstOff + res.Bytes
		to := min(from+max(c.chunk, c.src.SetSize(), c.dst.SetSize()), res.PublishedEOF, c.dstOff+c.length)
		for i := from; i < to; i++ {
			if got[i] == c.srcData[c.srcOff+i-c.dstOff] {
				want[i] = got[i]
			}
		}
	}
	if !bytes.Equal(got, want) {
		fail("bytes below the published EOF differ at %d", firstDifference(got, want))
	}
	// Past the EOF: no object wholly past it, nothing but zeros in the
	// ones that straddle it.
	pastEOF := func(eof uint64) {
		t.Helper()
		end := max(c.dstOff+c.length, c.eof) + c.dst.SetSize()
		if past := readFile(t, dst, c.dst, c.dstNames, eof, end-eof); !bytes.Equal(past, make([]byte, len(past))) {
			fail("data readable past the EOF %d", eof)
		}
		for no := c.dst.ObjectsFor(eof); no < c.dst.ObjectsFor(end); no++ {
			if _, serr := dst.Stat(c.dstNames.ObjectName(no)); serr == nil && c.dst.ObjectLength(eof, no) == 0 {
				fail("object %d exists past the EOF %d", no, eof)
			}
		}
	}
	// A cut-back that itself failed (a fault on the Stat, Truncate or
	// Remove it issued) says so in the error, and leaves what the copy
	// wrote past the published EOF in place: that is all the promise can
	// be then. What is left must still be only the copy's own bytes, each
	// where the copy put it: past the EOF, every byte reads as zero or
	// as the source's byte for that offset, and none lies past the
	// copy's range. The resume below then replaces it, and the strict
	// check holds at the final EOF.
	cutBackFailed := err != nil && strings.Contains(err.Error(), "cut back to EOF")
	if cutBackFailed {
		if resume == nil {
			fail("a cut-back failed with no fault on its operations")
		}
		end := max(c.dstOff+c.length, c.eof) + c.dst.SetSize()
		past := readFile(t, dst, c.dst, c.dstNames, res.PublishedEOF, end-res.PublishedEOF)
		for k, b := range past {
			at := res.PublishedEOF + uint64(k)
			if b == 0 {
				continue
			}
			if at < c.dstOff || at >= c.dstOff+c.length || b != c.srcData[c.srcOff+at-c.dstOff] {
				fail("after a failed cut-back, byte %d past the published EOF %d is not the copy's", at, res.PublishedEOF)
			}
		}
	} else {
		pastEOF(res.PublishedEOF)
	}
	if err == nil || resume == nil {
		return
	}
	// Resuming from the published EOF (what cp --resume does) finishes it.
	r2 := resume(c.srcOff+res.Bytes, c.dstOff+res.Bytes, c.length-res.Bytes)
	if r2.Bytes != c.length-res.Bytes {
		fail("resume copied %d of %d bytes", r2.Bytes, c.length-res.Bytes)
	}
	full := readFile(t, dst, c.dst, c.dstNames, 0, max(c.eof, c.dstOff+c.length))
	want = make([]byte, len(full))
	copy(want, c.oldData)
	copy(want[c.dstOff:], c.srcData[c.srcOff:c.srcOff+c.length])
	if !bytes.Equal(full, want) {
		fail("after resuming, bytes differ at %d", firstDifference(full, want))
	}
	pastEOF(uint64(len(full)))
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func soakEnv(t *testing.T, name string, def int) int {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("$%s=%q: expected a whole number", name, v)
		}
		return n
	}
	return def
}

func soakSeed(t *testing.T) uint64 {
	seed := uint64(soakEnv(t, "RADOSCP_SOAK_SEED", int(time.Now().UnixNano()&0x7fffffff)))
	t.Logf("RADOSCP_SOAK_SEED=%d", seed)
	return seed
}

// TestSoakFake runs random copies with random client-side faults (the
// fault decorator over the fake object store) on the destination.
func TestSoakFake(t *testing.T) {
	iterations := soakEnv(t, "RADOSCP_SOAK_ITERATIONS", 20)
	r := rand.New(rand.NewPCG(soakSeed(t), 7))
	var failed, resumed, hits int
	for i := range iterations {
		c := newSoakCase(r, fmt.Sprintf("soak%d", i), true)
		store := fake.New()
		if r.IntN(2) == 0 {
			store.Latency = func(string) time.Duration { return time.Duration(r.IntN(200)) * time.Microsecond }
		}
		srcP, dstP := store.Pool("a"), store.Pool("b")
		writeFile(t, srcP, c.src, c.srcNames, 0, c.srcData)
		writeFile(t, dstP, c.dst, c.dstNames, 0, c.oldData)
		src := radoscp.Source{Objects: srcP, Layout: c.src, Names: c.srcNames, Size: c.srcSize}
		in := faults.New(r.Uint64(), c.rules...)
		dst := in.Wrap(dstP)
		engine := radoscp.NewEngine(nil, quiet)
		res, err := engine.Copy(context.Background(), src, c.srcOff, truncate.NewRaw(dst, c.dst, c.dstPrefix+"-dst", c.eof),
			c.dstOff, c.length, radoscp.Options{Window: c.window, Chunk: c.chunk})
		if err != nil {
			failed++
		}
		hits += in.Hits()
		resume := func(srcOff, dstOff, length uint64) radoscp.Result {
			resumed++
			eof := res.PublishedEOF
			r2, err := radoscp.NewEngine(nil, quiet).Copy(context.Background(), src, srcOff, truncate.NewRaw(dstP, c.dst, c.dstPrefix+"-dst", eof),
				dstOff, length, radoscp.Options{Window: c.window, Chunk: c.chunk})
			if err != nil {
				t.Fatalf("%v: resume: %v", c, err)
			}
			return r2
		}
		checkSoak(t, c, dstP, res, err, resume)
	}
	t.Logf("%d copies, %d operations failed or delayed, %d copies failed and were resumed (%d)", iterations, hits, failed, resumed)
}

// TestSoakReal runs a few random copies on the real cluster, some with
// every copy-from failing on the OSDs (osd_debug_inject_copyfrom_error).
func TestSoakReal(t *testing.T) {
	iterations := soakEnv(t, "RADOSCP_SOAK_REAL_ITERATIONS", 4)
	conn := connectAdmin(t)
	a, err := conn.OpenPool("radoscp-a", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := conn.OpenPool("radoscp-b", "")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(soakSeed(t), 11))
	injected := false
	for i := range iterations {
		c := newSoakCase(r, test.UniqueName(t), false)
		inject := i%2 == 1
		if inject {
			c = offloadable(c)
		}
		t.Cleanup(func() {
			for no := range c.src.ObjectsFor(c.srcSize) {
				a.Remove(c.srcNames.ObjectName(no))
			}
			for no := range c.dst.ObjectsFor(max(c.eof, c.dstOff+c.length) + c.dst.SetSize()) {
				b.Remove(c.dstNames.ObjectName(no))
			}
		})
		writeFile(t, a, c.src, c.srcNames, 0, c.srcData)
		writeFile(t, b, c.dst, c.dstNames, 0, c.oldData)
		if inject != injected {
			test.InjectCopyFromError(t, inject)
			injected = inject
		}
		src := radoscp.Source{Objects: a, Layout: c.src, Names: c.srcNames, Size: c.srcSize}
		res, err := radoscp.NewEngine(nil, quiet).Copy(context.Background(), src, c.srcOff, truncate.NewRaw(b, c.dst, c.dstPrefix+"-dst", c.eof),
			c.dstOff, c.length, radoscp.Options{Window: c.window, Chunk: c.chunk})
		t.Logf("%v, copy-from failing: %v: %d bytes, err %v", c, injected, res.Bytes, err)
		if inject && !errors.Is(err, store.ErrIO) {
			t.Errorf("copy-from fails on every OSD, but the copy gave %v", err)
		}
		checkSoak(t, c, b, res, err, nil)
	}
}

// offloadable turns c into a copy that copy-from serves: equal layouts,
// set-aligned offsets into a new file, at least two object sets long.
func offloadable(c soakCase) soakCase {
	set := c.src.SetSize()
	c.dst = c.src
	c.srcSize = max(c.srcSize, 3*set)
	c.srcData = randomData(uint64(c.srcSize), int(c.srcSize))
	c.srcOff = min(c.srcOff, c.srcSize-2*set) / set * set
	c.length = c.srcSize - c.srcOff
	c.eof, c.oldData, c.dstOff = 0, nil, set
	return c
}
