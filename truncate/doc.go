// Package truncate holds the destinations a copy writes to (raw object
// sets, libradosstriper objects, CephFS staging files), each a
// radoscp.Destination: the truncate generation (seq, size) that travels
// with every copy-from into it, how its EOF is recorded and published,
// how a failed parallel copy is cut back to the published EOF so that
// objects written speculatively past it can never be read, and the copy
// lock that keeps a second run out. It speaks package store only, so every
// destination can be faked and fault-injected.
package truncate
