package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/truncate"
)

// closeDestination ends a copy's hold on its destination (the copy lock).
// A lock object left behind is not a failed copy: the data is in place
// and the object is empty, so the exit status stays the copy's, and a
// warning says what is left and how to remove it. Anything else that
// fails there is said too.
func closeDestination(w io.Writer, req cpRequest, dst radoscp.Destination) {
	err := dst.Close()
	if err == nil {
		return
	}
	fmt.Fprintf(w, "radoscp: warning: %s: %v\n", req.dst, err)
	if errors.Is(err, truncate.ErrLockLeft) {
		ns := ""
		if req.dst.Namespace != "" {
			ns = " -N " + req.dst.Namespace
		}
		fmt.Fprintf(w, "radoscp: warning: the copy itself is complete; the empty lock object is left: remove it with `rados -p %s%s rm %s` when no copy into %s runs\n",
			req.dst.Pool, ns, truncate.RawLockObject(req.dst.Name), req.dst)
	}
}
