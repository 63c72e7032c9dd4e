// Package fake is an in-memory store.Objects for fast unit tests of the
// copy engine. It follows the OSD's rules that radoscp relies on (copy-from
// replaces the whole object and is atomic; a missing source gives ENOENT;
// reads past the end are short) and its conformance is checked by the same
// suite as the real cluster (package rados/objtest).
package fake
