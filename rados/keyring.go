package rados

import (
	"io/fs"
	"os"
	"strings"
)

// OpenKeyring finds the keyring the connection may read its key from
// (explicit, else the conf's keyring option: a list, of which librados
// takes the first that exists) and reports it when it is readable by
// group or others, with its mode: anyone who can read it can act as the
// client. Files that do not exist or cannot be stat'ed are not reported.
func (c *Conn) OpenKeyring(explicit string) (path string, mode fs.FileMode, open bool) {
	paths := explicit
	if paths == "" {
		paths, _ = c.rc.GetConfigOption("keyring")
	}
	for _, p := range strings.FieldsFunc(paths, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' }) {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		mode := st.Mode().Perm()
		return p, mode, mode&0o077 != 0
	}
	return "", 0, false
}
