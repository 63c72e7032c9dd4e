// Package desttest is the conformance suite for copy destinations
// (radoscp.Destination): one table of Checkpoint, Publish, CutBack and
// reopen sequences, run against every destination kind on the in-memory
// fake and on the real cluster, asserting after every step that what a
// reader sees equals what was published. It also holds FakeFile, a model of
// a CephFS file's size and truncate generation as the MDS keeps them.
package desttest
