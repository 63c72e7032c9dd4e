package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// cp -r keeps hard links inside the tree, on a normal and a slow client:
// ceph-fuse sees one inode per link group with all its links (stat -c
// %i,%h), rsync -a -H --checksum finds nothing to do, and the data was
// copied once (the summary's bytes).
func TestE2ECephFSHardLinks(t *testing.T) {
	e := newFSEnv(t)
	fuse := test.FuseMount(t)
	big := test.RandomData(21, 6<<20+5)
	for _, c := range confs(t, e.conf) {
		t.Run(c.name, func(t *testing.T) {
			src, dst := c.name+"/src", c.name+"/dst"
			for _, d := range []string{c.name, src, src + "/a", src + "/a/b"} {
				if err := e.m.MakeDir(e.path(d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			e.write(t, src+"/big", big)
			for _, l := range []string{"/a/big.1", "/a/b/big.2"} {
				if err := e.m.Link(e.path(src+"/big"), e.path(src+l)); err != nil {
					t.Fatal(err)
				}
			}
			r := runCmd(t, nil, "cp", "-c", c.conf, "-r", "--json", "cephfs:"+e.path(src), "cephfs:"+e.path(dst))
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			lines := jsonLines(t, r)
			sum := lines[len(lines)-1]
			if sum["files"] != 1.0 || sum["hard_links"] != 2.0 || sum["bytes"] != float64(len(big)) {
				t.Fatalf("summary %v: want 1 file of %d bytes and 2 hard links", sum, len(big))
			}
			var inodes []string
			for _, p := range []string{"/big", "/a/big.1", "/a/b/big.2"} {
				inodes = append(inodes, strings.TrimSpace(test.Run(t, "stat", "-c", "%i,%h", fuse+e.path(dst+p))))
			}
			if inodes[0] != inodes[1] || inodes[0] != inodes[2] || !strings.HasSuffix(inodes[0], ",3") {
				t.Fatalf("stat -c %%i,%%h of the copies: %v; want one inode with 3 links", inodes)
			}
			if out := test.Run(t, "rsync", "-a", "-H", "-n", "-i", "--checksum", fuse+e.path(src)+"/", fuse+e.path(dst)+"/"); out != "" {
				t.Fatalf("rsync -a -H -n -i --checksum finds differences:\n%s", out)
			}
		})
	}
}
