// Package verify proves a copy equal to its source without moving the
// data: object by object, the OSDs compute checksums of the same byte
// ranges of source and destination, and only the sums cross the client.
// Holes on both sides match; a hole on one side only, an object shorter or
// longer than the file's size gives it, and data past the destination's
// EOF are differences. Many checksums are in flight at once, through the
// same window as copies.
package verify
