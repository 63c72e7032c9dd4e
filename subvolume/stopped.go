package subvolume

// stoppedError is a clone its context stopped: its message says so once
// (the context's error, "context canceled", would say it again) and it
// wraps that error, for errors.Is.
type stoppedError struct {
	msg string
	err error
}

func (e stoppedError) Error() string { return e.msg }
func (e stoppedError) Unwrap() error { return e.err }
