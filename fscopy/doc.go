// Package fscopy copies CephFS files and trees with the copy engine, as
// cp -a would, and migrates files to another data pool.
//
// Every file is written to a staging file, created exclusively next to its
// destination (".radoscp." + name, marked as radoscp's: see staging.go)
// with the layout wanted, and renamed onto
// the destination only when complete, with its metadata in place and the
// source unchanged since the copy started. So a destination is either
// absent, or the old file, or a complete copy. An interrupted copy leaves
// its staging file, whose published EOF is recorded in it; a rerun with
// Resume continues from there, a rerun without it starts over, and both
// remove what the interrupted copy left.
//
// A tree copy into a target it creates builds the whole tree in one
// staging directory instead, files under their final names, and renames
// it into place once complete (freshtree.go); the workers of a sharded
// copy build one such tree together (sharedtree.go).
package fscopy
