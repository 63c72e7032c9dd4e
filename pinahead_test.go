package radoscp_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
)

// TestPinsStartedAhead: pins started before the copy (Engine.StartPins,
// as a command does while it takes the destination's lock) are the ones
// the copy holds its source to. A source object rewritten after every
// ahead pin returned and before the copy started fails the copy with
// ErrSourceChanged; pins taken by the copy itself would have seen the
// new version and copied it. Pins started for another range are refused
// before anything is written.
func TestPinsStartedAhead(t *testing.T) {
	const objects = 8
	newData := bytes.Repeat([]byte{0xee}, obj)
	t.Run("held-to-them", func(t *testing.T) {
		f := newFixture(t, small, objects*obj)
		hooks := newStatHooks(f.source.Objects)
		returned := make(chan string, objects)
		hooks.after = func(oid string, n int) {
			select {
			case returned <- oid:
			default: // stats past the ahead pins' (a failing copy's own)
			}
		}
		f.source.Objects = hooks
		o := radoscp.Options{Window: 2, PinSource: true}
		o.Pins = f.engine.StartPins(f.source, 0, objects*obj, o, false)
		for range objects {
			select {
			case <-returned:
			case <-time.After(holdFor):
				t.Fatal("the ahead pins did not all return")
			}
		}
		if err := f.srcP.WriteFull(f.source.Names.ObjectName(5), newData); err != nil {
			t.Fatal(err)
		}
		res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, objects*obj, o)
		if !errors.Is(err, radoscp.ErrSourceChanged) {
			t.Fatalf("copy after a change behind its ahead pins: %v; want ErrSourceChanged", err)
		}
		if res.Bytes != 5*obj || !bytes.Equal(f.read(t, 0, 5*obj), f.data[:5*obj]) {
			t.Fatalf("published %d bytes; want the 5 objects before the changed one", res.Bytes)
		}
		if n := hooks.count(f.source.Names.ObjectName(5)); n != 1 {
			t.Errorf("object 5 was stat'ed %d times; want once, by the ahead pins", n)
		}
	})
	t.Run("another-range", func(t *testing.T) {
		f := newFixture(t, small, objects*obj)
		o := radoscp.Options{Window: 2, PinSource: true}
		o.Pins = f.engine.StartPins(f.source, 0, 4*obj, o, false)
		_, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, objects*obj, o)
		if !errors.Is(err, radoscp.ErrInvalid) {
			t.Fatalf("copy with pins of another range: %v; want ErrInvalid", err)
		}
		if left := f.objectsFrom(0, objects); len(left) != 0 {
			t.Fatalf("refused copy wrote objects %v", left)
		}
	})
}
