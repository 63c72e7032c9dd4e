package address

import (
	"fmt"
	"path"
	"strings"
)

// Scheme is the kind of thing an address names.
type Scheme string

const (
	Rados   Scheme = "rados"   // a raw object set: PREFIX.%08x objects
	Striper Scheme = "striper" // a libradosstriper object
	CephFS  Scheme = "cephfs"  // a CephFS path
)

// Address is a parsed copy source or destination.
type Address struct {
	Scheme    Scheme
	Pool      string
	Namespace string
	Name      string // the prefix of a raw object set, or the striped object's name
	FS        string // cephfs: the file system's name ("" for the default)
	Path      string // cephfs: the absolute path, cleaned
	Raw       string // as given, for messages
}

func (a Address) String() string { return a.Raw }

// Parse parses rados:POOL/PREFIX, rados:POOL/NAMESPACE/PREFIX,
// striper:POOL/NAME, striper:POOL/NAMESPACE/NAME, cephfs:/PATH and
// cephfs:FSNAME:/PATH. Object names may not contain '/' (the separator);
// pools, namespaces and names may not be empty; nothing may contain
// control characters; CephFS paths must be absolute.
func Parse(s string) (Address, error) {
	a := Address{Raw: s}
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		return a, fmt.Errorf("invalid address %q: expected SCHEME:..., one of rados:POOL/PREFIX, striper:POOL/NAME, cephfs:/PATH", s)
	}
	a.Scheme = Scheme(scheme)
	switch a.Scheme {
	case Rados, Striper:
	case CephFS:
		return parseCephFS(a, rest)
	default:
		return a, fmt.Errorf("invalid address %q: unknown scheme %q, expected rados:, striper: or cephfs:", s, scheme)
	}
	parts := strings.Split(rest, "/")
	switch len(parts) {
	case 2:
		a.Pool, a.Name = parts[0], parts[1]
	case 3:
		a.Pool, a.Namespace, a.Name = parts[0], parts[1], parts[2]
		if a.Namespace == "" {
			return a, fmt.Errorf("invalid address %q: empty namespace; omit it for the default namespace", s)
		}
	default:
		return a, fmt.Errorf("invalid address %q: expected %s:POOL/NAME or %s:POOL/NAMESPACE/NAME", s, scheme, scheme)
	}
	if a.Pool == "" {
		return a, fmt.Errorf("invalid address %q: empty pool name", s)
	}
	if a.Name == "" {
		return a, fmt.Errorf("invalid address %q: empty object name", s)
	}
	return a, checkControl(a, a.Pool, a.Namespace, a.Name)
}

func checkControl(a Address, fields ...string) error {
	for _, f := range fields {
		for _, r := range f {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("invalid address %q: control character %U", a.Raw, r)
			}
		}
	}
	return nil
}

// parseCephFS parses the part of a cephfs: address after the scheme.
func parseCephFS(a Address, rest string) (Address, error) {
	p := rest
	if !strings.HasPrefix(rest, "/") {
		name, after, ok := strings.Cut(rest, ":")
		if !ok || name == "" {
			return a, fmt.Errorf("invalid address %q: expected cephfs:/PATH or cephfs:FSNAME:/PATH (absolute path)", a.Raw)
		}
		a.FS, p = name, after
	}
	if !strings.HasPrefix(p, "/") {
		return a, fmt.Errorf("invalid address %q: CephFS path %q is not absolute", a.Raw, p)
	}
	a.Path = path.Clean(p)
	return a, checkControl(a, a.FS, a.Path)
}

// Canonical names a rados: or striper: address however it was spelled:
// scheme:pool/name or scheme:pool/namespace/name.
func (a Address) Canonical() string {
	if a.Namespace == "" {
		return fmt.Sprintf("%s:%s/%s", a.Scheme, a.Pool, a.Name)
	}
	return fmt.Sprintf("%s:%s/%s/%s", a.Scheme, a.Pool, a.Namespace, a.Name)
}
