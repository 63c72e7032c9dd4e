package cephfs

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/radoscp/radoscp/store"
)

// Generation is the truncate generation a client sends with every write
// to fl's objects: the inode's truncate_seq and truncate_size, as the MDS
// last told this client. A never-truncated file has (1, 2^64-1), which
// OSDs store as (0, 0); Generation returns the stored form, so the result
// can be given to copy-from as it is. Each shrinking truncate bumps Seq.
//
// libcephfs has no call for it, so it is read from this client's own admin
// socket (command dump_cache), which Session made private to the process.
func (fl *File) Generation() (store.Generation, error) {
	inodes, err := dumpCache(fl.fs.asok)
	if err != nil {
		return store.Generation{}, fmt.Errorf("truncate generation of cephfs:%s: %w", fl.path, err)
	}
	for _, in := range inodes {
		ino, err := strconv.ParseUint(in.Ino, 0, 64)
		if err != nil || ino != fl.ino || in.Snap != "head" {
			continue
		}
		if in.TruncateSeq == 1 && in.TruncateSize == math.MaxUint64 {
			return store.Generation{}, nil
		}
		return store.Generation{Seq: in.TruncateSeq, Size: in.TruncateSize}, nil
	}
	return store.Generation{}, fmt.Errorf("truncate generation of cephfs:%s: inode %#x is not in the client's cache", fl.path, fl.ino)
}

type cachedInode struct {
	Ino          string `json:"ino"`
	Snap         string `json:"snapid"`
	TruncateSeq  uint32 `json:"truncate_seq"`
	TruncateSize uint64 `json:"truncate_size"`
}

// dumpCache runs dump_cache on the admin socket at path.
func dumpCache(path string) ([]cachedInode, error) {
	var out struct {
		Cache []cachedInode `json:"cache"`
	}
	if err := adminCommand(path, "dump_cache", &out); err != nil {
		return nil, err
	}
	return out.Cache, nil
}

// adminCommand runs command prefix on the admin socket at path and
// decodes its JSON answer into out. The protocol is Ceph's: the command
// as JSON ended by a NUL byte, answered by a 32-bit big-endian length and
// that many bytes.
func adminCommand(path, prefix string, out any) error {
	c, err := net.DialTimeout("unix", path, 10*time.Second)
	if err != nil {
		return fmt.Errorf("client admin socket: %w", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(`{"prefix":"` + prefix + `"}` + "\x00")); err != nil {
		return fmt.Errorf("client admin socket: %w", err)
	}
	var n uint32
	if err := binary.Read(c, binary.BigEndian, &n); err != nil {
		return fmt.Errorf("client admin socket: %w", err)
	}
	if err := json.NewDecoder(io.LimitReader(c, int64(n))).Decode(out); err != nil {
		return fmt.Errorf("client admin socket: %s: %w", prefix, err)
	}
	return nil
}
