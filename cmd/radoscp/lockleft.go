package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/truncate"
)

// warnClose says on w what went wrong ending a copy's hold on its
// destination dst (err, nil if nothing did). A lock object left behind is
// not a failed copy: the data is in place and the object is empty, so the
// exit status stays the copy's, and the warning says what is left and
// how to remove it.
func warnClose(w io.Writer, dst address.Address, err error) {
	if err == nil {
		return
	}
	fmt.Fprintf(w, "radoscp: warning: %s: %v\n", dst, err)
	if errors.Is(err, truncate.ErrLockLeft) {
		ns := ""
		if dst.Namespace != "" {
			ns = " -N " + dst.Namespace
		}
		fmt.Fprintf(w, "radoscp: warning: the copy itself is complete; the empty lock object is left: remove it with `rados -p %s%s rm %s` when no copy into %s runs\n",
			dst.Pool, ns, truncate.RawLockObject(dst.Name), dst)
	}
}
