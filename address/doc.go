// Package address parses the addresses radoscp copies from and to:
// rados:POOL[/NAMESPACE]/PREFIX (a raw object set), striper:POOL[/NAMESPACE]/NAME
// (a libradosstriper object) and cephfs:[FSNAME:]/PATH. A new kind of
// address is a Scheme here, with its parsing and a test in address_test.go;
// the packages that copy it (objcopy, fscopy) then say what it opens.
package address
