package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/store"
)

// chunk is how many file bytes CompareClient reads from each side at once.
const chunk = 4 << 20

// CompareClient checks dst against src by reading both through the client,
// width chunks at once: for files whose layouts differ, or OSDs without
// the checksum op. Every byte crosses the client twice (ClientBytes says
// so). Missing objects and bytes past an object's end read as zeros, as
// in a file.
func CompareClient(ctx context.Context, src, dst radoscp.Source, width int) (Result, error) {
	var res Result
	if src.Size != dst.Size {
		res.Differences = append(res.Differences, Difference{What: fmt.Sprintf("size %d, the source's %d", dst.Size, src.Size)})
	}
	size := min(src.Size, dst.Size)
	n := (size + chunk - 1) / chunk
	diffs := make([]string, n)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(width, 1))
	for i := range n {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			off := i * chunk
			ln := min(uint64(chunk), size-off)
			a, err := readRange(src, off, ln)
			if err != nil {
				return err
			}
			b, err := readRange(dst, off, ln)
			if err != nil {
				return err
			}
			if !bytes.Equal(a, b) {
				at := 0
				for at < len(a) && a[at] == b[at] {
					at++
				}
				diffs[i] = fmt.Sprintf("file byte %d differs", off+uint64(at))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	for i, d := range diffs {
		if d != "" {
			off := uint64(i) * chunk
			res.Differences = append(res.Differences, Difference{Object: "(read through the client)", Off: off, Len: min(uint64(chunk), size-off), What: d})
		}
	}
	res.Objects = src.Layout.ObjectsFor(size)
	res.Bytes = size
	res.ClientBytes = 2 * size
	return res, nil
}

// readRange reads file bytes [off, off+n) of s.
func readRange(s radoscp.Source, off, n uint64) ([]byte, error) {
	out := make([]byte, n)
	for ext := range s.Layout.Extents(off, n) {
		at := ext.FileOff - off
		_, err := s.Objects.Read(s.Names.ObjectName(ext.ObjectNo), out[at:at+ext.Length], ext.ObjectOff)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	return out, nil
}
