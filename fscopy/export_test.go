package fscopy

// SetAfterCopy installs a hook that runs between a file's copy and the
// check that its source did not change.
func SetAfterCopy(o *Options, f func(src string)) { o.afterCopy = f }
