// Package truncate owns a destination's truncate generation: the (seq, size)
// that travels with every copy-from into it, how its EOF is published, and
// how a failed parallel copy is cut back to the published EOF so that objects
// written speculatively past it can never be read.
package truncate
