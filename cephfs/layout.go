package cephfs

import (
	"fmt"
	"strings"

	"github.com/radoscp/radoscp/layout"
)

// FileLayout is a file's layout and where its objects live.
type FileLayout struct {
	layout.Layout
	Pool, Namespace string
}

// String is the ceph.file.layout syntax, pool and namespace included.
func (l FileLayout) String() string {
	s := l.Layout.String() + " pool=" + l.Pool
	if l.Namespace != "" {
		s += " pool_namespace=" + l.Namespace
	}
	return s
}

// parseFileLayout reads the ceph.file.layout vxattr.
func parseFileLayout(s string) (FileLayout, error) {
	l, err := layout.Parse(s)
	if err != nil {
		return FileLayout{}, err
	}
	fl := FileLayout{Layout: l}
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "pool":
			fl.Pool = v
		case "pool_namespace":
			fl.Namespace = v
		}
	}
	if fl.Pool == "" {
		return FileLayout{}, fmt.Errorf("layout %q names no pool", s)
	}
	return fl, nil
}

// Layout reads the layout of the regular file at path.
func (f *FS) Layout(path string) (FileLayout, error) {
	v, err := f.m.GetXattr(path, "ceph.file.layout")
	if err != nil {
		return FileLayout{}, pathError("get layout", path, err)
	}
	l, err := parseFileLayout(string(v))
	if err != nil {
		return FileLayout{}, fmt.Errorf("cephfs:%s: %w", path, err)
	}
	return l, nil
}
