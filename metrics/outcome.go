package metrics

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// Outcomes are indexed so that recording one is an array access rather than
// a map lookup under a lock: 0 is success, 1 a failure without an errno (or
// with one too large or unnamed), 1+e the errno e. Every label value comes
// from outcomeNames, which keeps the label set fixed and small whatever the
// errors say.
const (
	outcomeOK    = 0
	outcomeError = 1
	maxErrno     = 255 // Linux errnos stop well below this
	nOutcomes    = 2 + maxErrno
)

var outcomeNames = func() (names [nOutcomes]string) {
	names[outcomeOK] = "ok"
	names[outcomeError] = "error"
	for e := syscall.Errno(1); e <= maxErrno; e++ {
		names[1+e] = errnoName(e)
	}
	return names
}()

// errnoName names e as Ceph's logs do, or "" when it has no name.
func errnoName(e syscall.Errno) string {
	if e == syscall.EOPNOTSUPP {
		return "EOPNOTSUPP" // Linux's ENOTSUP is the same number
	}
	return unix.ErrnoName(e)
}

// Outcomes lists every value the outcome label can take.
func Outcomes() []string {
	out := []string{outcomeNames[outcomeOK], outcomeNames[outcomeError]}
	for _, n := range outcomeNames[2:] {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

func outcomeOf(err error) int {
	if err == nil {
		return outcomeOK
	}
	var e syscall.Errno
	if !errors.As(err, &e) || e == 0 || e > maxErrno || outcomeNames[1+e] == "" {
		return outcomeError
	}
	return 1 + int(e)
}
