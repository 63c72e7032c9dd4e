package fscopy

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/rados/fake"
)

// A copy's reads answered from what the layout's proof read give what
// the object gives, for every offset and length, whether the read saw
// the object's end (an object shorter than the file) or not; reads of
// other objects, and past what the proof read, go to the pool.
func TestObject0ReadsAsThePool(t *testing.T) {
	for _, c := range []struct{ object, file int }{{100, 100}, {60, 100}, {100, 40}} {
		t.Run(fmt.Sprintf("object %d, file %d", c.object, c.file), func(t *testing.T) {
			pool := fake.New().Pool("p")
			data := bytes.Repeat([]byte("0123456789"), c.object/10)
			if err := pool.Write("o", data, 0); err != nil {
				t.Fatal(err)
			}
			if err := pool.Write("other", []byte("x"), 0); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, c.file)
			n, err := pool.Read("o", buf, 0)
			if err != nil {
				t.Fatal(err)
			}
			o := &object0{oid: "o", data: buf[:n], ended: n < len(buf)}
			served := o.source(radoscp.Source{Objects: pool}).Objects
			for off := range c.object + 3 {
				for size := range c.file + 3 {
					want, got := make([]byte, size), make([]byte, size)
					wn, werr := pool.Read("o", want, uint64(off))
					gn, gerr := served.Read("o", got, uint64(off))
					if gn != wn || (gerr == nil) != (werr == nil) || !bytes.Equal(got[:gn], want[:wn]) {
						t.Fatalf("read %d at %d: %d bytes, %v; the pool gives %d, %v", size, off, gn, gerr, wn, werr)
					}
				}
			}
			if n, err := served.Read("other", make([]byte, 4), 0); n != 1 || err != nil {
				t.Fatalf("read of another object: %d bytes, %v; want the pool's 1", n, err)
			}
		})
	}
}

// What the proof read is what the copy gets, even if the object changed
// since (the file's stats around the copy find that); a nil object0
// leaves the source as it is.
func TestObject0AnswersFromTheProof(t *testing.T) {
	pool := fake.New().Pool("p")
	if err := pool.Write("o", []byte("before"), 0); err != nil {
		t.Fatal(err)
	}
	o := &object0{oid: "o", data: []byte("before"), ended: true}
	if err := pool.Write("o", []byte("AFTER!"), 0); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 6)
	if n, err := o.source(radoscp.Source{Objects: pool}).Objects.Read("o", got, 0); n != 6 || err != nil || string(got) != "before" {
		t.Fatalf("read %q (%d, %v), want what the proof read", got, n, err)
	}
	var none *object0
	if s := none.source(radoscp.Source{Objects: pool}); s.Objects != pool {
		t.Fatalf("a nil object0 wrapped the pool: %T", s.Objects)
	}
}
