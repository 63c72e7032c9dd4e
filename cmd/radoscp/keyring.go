package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/radoscp/radoscp/rados"
)

// keyringWarning is printed at most once per process: a batch connects
// once, but a warning per copy would bury the results.
var keyringWarning sync.Once

// warnOpenKeyring warns on w when a keyring the connection may read its
// key from is readable by group or others: anyone who can read it can act
// as the client. The paths are --keyring, else the conf's keyring option
// (a list: librados takes the first that exists). Files that do not
// exist or cannot be stat'ed are not this check's business.
func warnOpenKeyring(w io.Writer, conn *rados.Conn, explicit string) {
	paths := explicit
	if paths == "" {
		paths, _ = conn.Raw().GetConfigOption("keyring")
	}
	for _, p := range strings.FieldsFunc(paths, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' }) {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if mode := st.Mode().Perm(); mode&0o077 != 0 {
			keyringWarning.Do(func() {
				fmt.Fprintf(w, "radoscp: warning: keyring %s is readable by group or others (mode %04o); anyone who can read it can act as this client: chmod 600 it\n", p, mode)
			})
		}
		return
	}
}
