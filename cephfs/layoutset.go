package cephfs

import (
	"regexp"
	"strings"
)

// The MDS parses a whole layout (ceph.dir.layout, ceph.file.layout) with
// a grammar whose values may hold only letters, digits, '_', '.' and the
// characters between '9' and '_' in ASCII: a hyphen, common in pool names
// ("cephfs-ec") and namespaces, makes the whole set fail with EINVAL. Each
// field's own vxattr (ceph.dir.layout.pool, ...) takes any value. A layout
// is therefore set whole when every value passes, and otherwise its
// parseable fields are set whole and the rest one by one.
var wholeLayoutValue = regexp.MustCompile(`^[0-9A-Za-z_.]+$`)

// Xattr is one extended attribute to set.
type Xattr struct {
	Name, Value string
}

// LayoutXattrs returns the vxattrs that give a file or directory layout l
// (in the syntax of vxattr name, ceph.file.layout or ceph.dir.layout), in
// the order to set them.
func LayoutXattrs(name, l string) []Xattr {
	var whole []string
	var apart []Xattr
	for _, kv := range strings.Fields(l) {
		k, v, _ := strings.Cut(kv, "=")
		if wholeLayoutValue.MatchString(v) {
			whole = append(whole, kv)
			continue
		}
		apart = append(apart, Xattr{name + "." + k, v})
	}
	if len(whole) == 0 {
		return apart
	}
	return append([]Xattr{{name, strings.Join(whole, " ")}}, apart...)
}
