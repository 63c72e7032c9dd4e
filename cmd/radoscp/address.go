package main

import (
	"fmt"
	"strings"
)

// Scheme is the kind of thing an address names.
type Scheme string

const (
	SchemeRados   Scheme = "rados"   // a raw object set: PREFIX.%08x objects
	SchemeStriper Scheme = "striper" // a libradosstriper object
	SchemeCephFS  Scheme = "cephfs"  // a CephFS path (not yet supported)
)

// Address is a parsed copy source or destination.
type Address struct {
	Scheme    Scheme
	Pool      string
	Namespace string
	Name      string // the prefix of a raw object set, or the striped object's name
	Raw       string // as given, for messages
}

func (a Address) String() string { return a.Raw }

// ParseAddress parses rados:POOL/PREFIX, rados:POOL/NAMESPACE/PREFIX,
// striper:POOL/NAME, striper:POOL/NAMESPACE/NAME. Object names may not
// contain '/' (the separator) and pools, namespaces and names may not be
// empty or contain control characters.
func ParseAddress(s string) (Address, error) {
	a := Address{Raw: s}
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		return a, fmt.Errorf("invalid address %q: expected SCHEME:..., one of rados:POOL/PREFIX, striper:POOL/NAME, cephfs:/PATH", s)
	}
	a.Scheme = Scheme(scheme)
	switch a.Scheme {
	case SchemeRados, SchemeStriper:
	case SchemeCephFS:
		return a, fmt.Errorf("address %q: cephfs: addresses are not supported yet", s)
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
	for _, f := range []string{a.Pool, a.Namespace, a.Name} {
		for _, r := range f {
			if r < 0x20 || r == 0x7f {
				return a, fmt.Errorf("invalid address %q: control character %U", s, r)
			}
		}
	}
	return a, nil
}
