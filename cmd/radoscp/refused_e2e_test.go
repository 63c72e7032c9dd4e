package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// Copies that are refused (exit 2, "invalid input, nothing written") must
// have written nothing: not the source, not an xattr, not a lock, not a
// new object. Each case is checked with the rados CLI (bytes and every
// xattr of every object involved) and each object's version, which any
// write moves, a lock taken and released too.

// objectsState is every object of pool whose name contains one of names:
// its bytes' sha256 and every xattr as the rados CLI reads them, and its
// version.
func objectsState(t *testing.T, conf, pool string, names ...string) map[string]string {
	t.Helper()
	p := test.OpenPool(t, conf, pool)
	state := map[string]string{}
	for _, name := range names {
		for _, l := range listNamed(t, conf, pool, name) {
			_, oid, _ := strings.Cut(l, "\t")
			st, err := p.Stat(oid)
			if errors.Is(err, store.ErrNotFound) {
				state[oid] = "no head" // rados ls lists an object a snapshot keeps
				continue
			}
			if err != nil {
				t.Fatalf("stat %s/%s: %v", pool, oid, err)
			}
			s := fmt.Sprintf("version %d sha256 %x", st.Version, sha256.Sum256(radosGet(t, conf, pool, "", oid, false)))
			attrs := strings.Fields(test.Run(t, "rados", "-c", conf, "-p", pool, "listxattr", oid))
			slices.Sort(attrs)
			for _, a := range attrs {
				// Its stdout only: a loaded cluster's clients log to stderr.
				s += fmt.Sprintf("; %s=%q", a, test.Run(t, "rados", "-c", conf, "-p", pool, "getxattr", oid, a))
			}
			state[oid] = s
		}
	}
	return state
}

func sameState(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for _, oid := range slices.Sorted(maps.Keys(after)) {
		if before[oid] != after[oid] {
			t.Errorf("%s: object %s changed:\nbefore: %s\nafter:  %s", what, oid, before[oid], after[oid])
		}
	}
	for oid := range before {
		if _, ok := after[oid]; !ok {
			t.Errorf("%s: object %s is gone", what, oid)
		}
	}
}

// refusedFixture is what one refusal case works on, made before the pool
// snapshot is taken: a striped source S (1 MiB objects), a raw source R
// of two 1 MiB objects in radoscp-a, and a destination D in radoscp-b
// that exists, with libradosstriper's default layout (4 MiB objects, so
// not S's) and 1 MiB of data, without a radoscp record; and N and L.
type refusedFixture struct {
	S, R, D string
	N       string   // an object of radoscp-b named like a striped object's first, without its xattrs
	L       string   // a prefix whose lock object's name a user's object of radoscp-b has
	data    []byte   // S's bytes
	objs    [][]byte // R's objects
}

func newRefusedFixture(t *testing.T, conf string) refusedFixture {
	f := refusedFixture{R: test.UniqueName(t), D: test.UniqueName(t), N: test.UniqueName(t)}
	b := test.OpenPool(t, conf, "radoscp-b")
	// D is written by radoscp, not `rados --striper put`, whose Pacific
	// CLI now and then crashes on exit (the fixture makes 25).
	raw := test.UniqueName(t)
	writeObjects(t, b, raw, 1, oneMiB)
	if r := runCmd(t, nil, "cp", "-c", conf, "--object-size", "4M", "--length", "1M", "--no-progress",
		"rados:radoscp-b/"+raw, "striper:radoscp-b/"+f.D); r.code != 0 {
		t.Fatalf("making the destination: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", f.D) })
	if err := b.WriteFull(f.N+".0000000000000000", []byte("not striped")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(f.N + ".0000000000000000") })
	f.L = test.UniqueName(t)
	if err := b.WriteFull(f.L+".radoscp-lock", []byte("user data")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(f.L + ".radoscp-lock") })
	f.S, f.data = makeStriperSource(t, conf, "radoscp-a", 2*oneMiB+5)
	f.objs = writeObjects(t, test.OpenPool(t, conf, "radoscp-a"), f.R, 2, oneMiB)
	return f
}

// Every copy onto its own objects, in every form (a striped object onto
// itself, whole or a range; a raw object set whole; raw ranges sharing an
// object; each from a pool snapshot of the source onto its head, which
// would wedge the OSD), --offload-only with layouts that need the client
// (onto an existing destination, which a whole copy would first empty,
// and onto a new one, which opening would create), --resume into an
// object it cannot continue, a striped destination that is an object
// without striper metadata, a raw destination whose lock object's name a
// user's object has (the copy's end removed it), and a dry run of a copy
// onto itself: each
// exits 2 with one line naming the bad value, and nothing changed (the
// source byte for byte, xattrs and versions; the destinations too; no
// object created). Normal and slow client, each case on objects of its
// own, the cases side by side. And the restore the snapshot refusals
// advise, run as printed, makes the heads the snapshot's again.
func TestE2ERefusedCopiesWriteNothing(t *testing.T) {
	conf := test.Conf(t)
	snap := test.UniqueName(t)
	type refusal struct {
		name string
		args func(f refusedFixture, fresh string) []string
		want func(f refusedFixture) []string
	}
	SS := func(f refusedFixture) string { return "striper:radoscp-a/" + f.S }
	RR := func(f refusedFixture) string { return "rados:radoscp-a/" + f.R }
	DD := func(f refusedFixture) string { return "striper:radoscp-b/" + f.D }
	self := func(addr func(refusedFixture) string) func(refusedFixture) []string {
		return func(f refusedFixture) []string { return []string{addr(f), "is both the source and the destination"} }
	}
	advice := func(addr func(refusedFixture) string) func(refusedFixture) []string {
		return func(f refusedFixture) []string {
			return []string{"--snap " + snap, addr(f), "radoscp cp --snap " + snap, ".restore", "wedges the OSD"}
		}
	}
	offloadOnly := func(refusedFixture) []string { return []string{"--offload-only is set: bytes [0,", "layouts differ"} }
	cases := []refusal{
		{"striper-onto-itself", func(f refusedFixture, _ string) []string { return []string{SS(f), SS(f)} }, self(SS)},
		{"striper-range-onto-itself", func(f refusedFixture, _ string) []string {
			return []string{"--length", "1M", "--dst-offset", "8M", SS(f), SS(f)}
		}, self(SS)},
		{"raw-onto-itself", func(f refusedFixture, _ string) []string {
			return []string{"--object-size", "1M", "--length", "2M", "--dst-size", "2M", RR(f), RR(f)}
		}, self(RR)},
		{"raw-ranges-overlap", func(f refusedFixture, _ string) []string {
			return []string{"--object-size", "1M", "--length", "2M", "--dst-offset", "1M", RR(f), RR(f)}
		}, func(f refusedFixture) []string {
			return []string{RR(f), "--src-offset 0 and --dst-offset 1048576 with --length 2097152", "overlap in the same objects"}
		}},
		// --op-timeout: should the refusal ever regress, the copy
		// fails instead of hanging (the OSD would stay wedged).
		{"striper-snapshot-onto-itself", func(f refusedFixture, _ string) []string {
			return []string{"--op-timeout", "20s", "--snap", snap, SS(f), SS(f)}
		}, advice(SS)},
		{"raw-snapshot-onto-itself", func(f refusedFixture, _ string) []string {
			return []string{"--op-timeout", "20s", "--snap", snap, "--object-size", "1M", "--length", "2M", "--dst-size", "2M", RR(f), RR(f)}
		}, advice(RR)},
		{"raw-snapshot-ranges-overlap", func(f refusedFixture, _ string) []string {
			return []string{"--op-timeout", "20s", "--snap", snap, "--object-size", "1M", "--length", "2M", "--dst-offset", "1M", RR(f), RR(f)}
		}, advice(RR)},
		{"offload-only-existing", func(f refusedFixture, _ string) []string { return []string{"--offload-only", SS(f), DD(f)} }, offloadOnly},
		{"offload-only-new", func(f refusedFixture, fresh string) []string {
			return []string{"--offload-only", SS(f), "striper:radoscp-b/" + fresh}
		}, offloadOnly},
		{"resume-without-record", func(f refusedFixture, _ string) []string { return []string{"--resume", SS(f), DD(f)} },
			func(f refusedFixture) []string { return []string{"--resume", DD(f), "no record"} }},
		{"not-a-striped-destination", func(f refusedFixture, _ string) []string { return []string{SS(f), "striper:radoscp-b/" + f.N} },
			func(f refusedFixture) []string {
				return []string{"striper:radoscp-b/" + f.N, "not a libradosstriper object"}
			}},
		{"raw-lock-object-is-users", func(f refusedFixture, _ string) []string {
			return []string{"--object-size", "1M", "--length", "2M", RR(f), "rados:radoscp-b/" + f.L}
		}, func(f refusedFixture) []string {
			return []string{"rados:radoscp-b/" + f.L, f.L + ".radoscp-lock holds 9 bytes", "not radoscp's copy lock"}
		}},
		{"dry-run-onto-itself", func(f refusedFixture, _ string) []string { return []string{"--dry-run", SS(f), SS(f)} }, self(SS)},
	}
	clients := confs(t, conf)
	fixtures := map[string]refusedFixture{}
	for _, c := range clients {
		for _, tc := range append(cases, refusal{name: "restore"}) {
			fixtures[c.name+"/"+tc.name] = newRefusedFixture(t, conf)
		}
	}
	mksnap(t, conf, "radoscp-a", snap)
	// Each case works on objects of its own: the cases, and the two
	// clients, run side by side (go test's -parallel at once).
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					f, fresh := fixtures[c.name+"/"+tc.name], test.UniqueName(t)
					beforeA := objectsState(t, conf, "radoscp-a", f.S, f.R)
					beforeB := objectsState(t, conf, "radoscp-b", f.D, f.N, f.L, fresh)
					r := runCmd(t, nil, append([]string{"cp", "-c", c.conf, "--no-progress"}, tc.args(f, fresh)...)...)
					msg := strings.TrimRight(r.stderr, "\n")
					if r.code != 2 || r.stdout != "" || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "radoscp: ") {
						t.Errorf("exit %d, want 2 with one line on stderr and nothing on stdout\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
					}
					for _, w := range tc.want(f) {
						if !strings.Contains(msg, w) {
							t.Errorf("stderr %q does not say %q", msg, w)
						}
					}
					if strings.Contains(msg, "is set is set") {
						t.Errorf("stderr %q", msg)
					}
					sameState(t, "source pool radoscp-a", beforeA, objectsState(t, conf, "radoscp-a", f.S, f.R))
					sameState(t, "destination pool radoscp-b", beforeB, objectsState(t, conf, "radoscp-b", f.D, f.N, f.L, fresh))
				})
			}
			t.Run("restore-as-advised", func(t *testing.T) {
				f := fixtures[c.name+"/restore"]
				restoreAsAdvised(t, c.conf, snap, f.S, f.R, f.data, f.objs)
			})
		})
	}
}

// restoreAsAdvised moves the heads of striped object S and raw set R away
// from snapshot snap, runs the commands the refusal of each in-place
// restore prints, and checks with the rados CLI that the heads are the
// snapshot's again.
func restoreAsAdvised(t *testing.T, conf, snap, S, R string, data []byte, objs [][]byte) {
	a := test.OpenPool(t, conf, "radoscp-a")
	moveHeads(t, conf, S, nil, R, 0, 1)

	for _, restore := range []struct {
		args   []string
		layout []string // the advice says: with the copy's layout flags
		check  func()
		remove func()
	}{
		{[]string{"striper:radoscp-a/" + S, "striper:radoscp-a/" + S}, nil,
			func() { test.Equal(t, "striped head restored", radosGet(t, conf, "radoscp-a", "", S, true), data) },
			func() { removeStriper(t, conf, "radoscp-a", S+".restore") }},
		{[]string{"--object-size", "1M", "--length", "2M", "--dst-size", "2M", "rados:radoscp-a/" + R, "rados:radoscp-a/" + R},
			[]string{"--object-size", "1M"},
			func() {
				for i := range objs {
					test.Equal(t, "raw head restored "+objName(R, i), radosGet(t, conf, "radoscp-a", "", objName(R, i), false), objs[i])
				}
			},
			func() {
				for i := range objs {
					a.Remove(objName(R+".restore", i))
				}
			}},
	} {
		t.Cleanup(restore.remove)
		r := runCmd(t, nil, append([]string{"cp", "-c", conf, "--no-progress", "--op-timeout", "20s", "--snap", snap}, restore.args...)...)
		if r.code != 2 {
			t.Fatalf("restore in place: exit %d, want 2: %s", r.code, r.stderr)
		}
		_, advice, ok := strings.Cut(r.stderr, "copy the snapshot to a new name, then that copy onto it: ")
		advice, removal, ok2 := strings.Cut(advice, ", then remove")
		advice, _, _ = strings.Cut(advice, " (both with")
		if !ok || !ok2 {
			t.Fatalf("no restore advice in %q", r.stderr)
		}
		for _, cmd := range strings.Split(advice, " && ") {
			args, ok := strings.CutPrefix(cmd, "radoscp cp ")
			if !ok {
				t.Fatalf("advised command %q is not a radoscp cp", cmd)
			}
			full := append(append([]string{"cp", "-c", conf, "--no-progress"}, restore.layout...), strings.Fields(args)...)
			if r := runCmd(t, nil, full...); r.code != 0 {
				t.Fatalf("advised %v: exit %d: %s", full, r.code, r.stderr)
			}
		}
		restore.check()
		if _, rm, ok := strings.Cut(strings.TrimSpace(removal), " (rados "); ok {
			// The removal the advice names, run as printed.
			args := strings.Fields(strings.TrimSuffix(rm, ")"))
			if out, err := test.RadosCLI(conf, args...); err != nil {
				t.Fatalf("advised rados %v: %v: %s", args, err, out)
			}
			if left := striperObjects(t, conf, "radoscp-a", S+".restore"); len(left) > 0 {
				t.Fatalf("advised removal left %v", left)
			}
		} else if restore.layout == nil {
			t.Fatalf("the striped restore's advice names no removal command: %q", removal)
		}
	}
}
