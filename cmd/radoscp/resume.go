package main

// --resume continues an interrupted copy into a striped object from the
// destination's published EOF (CephFS copies resume from their staging
// files, in fscopy; raw object sets record no EOF and are refused). Everything below that EOF is the source's (the engine publishes only
// a complete prefix), so the rest of the copy is the same request moved
// forward by what was published: the same source bytes land at the same
// destination offsets. Objects an interrupted run wrote past the EOF are
// inside the rest of the range and are replaced (copy-from) or overwritten
// (client writes) by the resumed copy.

// resumed returns req moved past what dst already published, with the
// length left to copy. A destination whose EOF is at or before the copy's
// start has nothing of this copy, and the whole request runs; one whose EOF
// is at or past the copy's end is finished, and the length left is 0.
func resumed(eof uint64, req cpRequest, length uint64) (cpRequest, uint64) {
	if eof <= req.dstOff {
		return req, length
	}
	done := min(eof-req.dstOff, length)
	req.srcOff += done
	req.dstOff += done
	return req, length - done
}
