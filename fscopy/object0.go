package fscopy

import (
	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/store"
)

// object0 is what a one-object source file's object 0 held when the read
// that proved its layout read it (sourceLayout): its first len(data)
// bytes, and all of them when ended. The copy's reads of that range are
// answered from it: they would read the same object, a moment later,
// between the same two stats of the file that find any change to it
// (flushedStat, checkSource).
type object0 struct {
	oid   string
	data  []byte
	ended bool // the object ends at len(data)
}

// source is s with reads of o's range answered from o; s itself for a
// nil o. Only the copy takes it: a verification reads the OSDs.
func (o *object0) source(s radoscp.Source) radoscp.Source {
	if o != nil {
		s.Objects = readObject0{Objects: s.Objects, o: o}
	}
	return s
}

// readObject0 is a pool whose reads of o's range are answered from o.
type readObject0 struct {
	store.Objects
	o *object0
}

func (r readObject0) Read(oid string, buf []byte, off uint64) (int, error) {
	have := uint64(len(r.o.data))
	if oid != r.o.oid || off > have || !r.o.ended && off+uint64(len(buf)) > have {
		return r.Objects.Read(oid, buf, off)
	}
	return copy(buf, r.o.data[off:]), nil
}
