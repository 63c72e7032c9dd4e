// Package objcopy copies rados: raw object sets and striper: objects end to
// end behind one call, Copier.Copy: it opens both endpoints (the
// destination under its copy lock), refuses what it must refuse before
// anything is written, records the copy on a striped destination so that
// --resume can continue it, guards a copy from a pool snapshot, runs the
// engine, finishes a striped destination and verifies. A command only
// turns flags into a Request and prints the Outcome; InvalidError and
// PartialError classify its failures for exit codes.
//
// It reaches the cluster only through Pools, so it compiles without cgo
// (cmd/radoscp serves Pools from a rados.Conn; rados/fake and rados/faults
// back its tests). A new kind of
// destination implements the destination interface in destination.go.
package objcopy
