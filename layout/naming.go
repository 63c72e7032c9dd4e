package layout

import "fmt"

// Namer gives the RADOS object name of each object number of one file.
type Namer interface {
	ObjectName(objectNo uint64) string
}

type cephFS uint64

func (ino cephFS) ObjectName(objectNo uint64) string {
	return fmt.Sprintf("%x.%08x", uint64(ino), objectNo)
}

// CephFS names the data objects of the CephFS file with inode ino, as the
// MDS and clients do: "10000000000.00000003".
func CephFS(ino uint64) Namer { return cephFS(ino) }

type striper string

func (name striper) ObjectName(objectNo uint64) string {
	return fmt.Sprintf("%s.%016x", string(name), objectNo)
}

// Striper names the objects of a libradosstriper object: "name.0000000000000003".
func Striper(name string) Namer { return striper(name) }

type prefix string

func (p prefix) ObjectName(objectNo uint64) string {
	return fmt.Sprintf("%s.%08x", string(p), objectNo)
}

// Prefix names a raw set of objects that no Ceph client owns, using the
// CephFS width for the object number: "prefix.00000003".
func Prefix(p string) Namer { return prefix(p) }
