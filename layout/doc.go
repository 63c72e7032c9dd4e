// Package layout maps file byte ranges onto RADOS objects the way Ceph's
// striper does, names those objects, and plans which parts of a copy can be
// offloaded as whole-object copy-froms and which must be read and written.
//
// It knows nothing of Ceph connections: it is pure arithmetic, so it can be
// fuzzed and checked against a brute-force mapper.
package layout
