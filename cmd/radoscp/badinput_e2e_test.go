package main

import (
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// badInput is one invalid command line. args builds it from the case's
// own destination name d (unique per case), so that the nothing-written
// check can look for anything named after d in the destination pool.
type badInput struct {
	name string
	env  []string
	args func(d string) []string
	// want must all appear in the one-line message: the bad value, and
	// what was expected or what is wrong with it.
	want []string
}

// TestE2EBadInput runs the built binary on invalid input of every kind:
// addresses, numbers, layouts, flags, config files, environment. Each must
// exit 2 with one line on stderr naming the problem, print nothing on
// stdout, and write nothing: no object named after the case's destination
// appears in any namespace of radoscp-b.
func TestE2EBadInput(t *testing.T) {
	conf := test.Conf(t)
	src := test.UniqueName(t)
	a := test.OpenPool(t, conf, "radoscp-a")
	writeObjects(t, a, src, 2, oneMiB)
	// An object named like a striped object's first, without its xattrs.
	notStriper := test.UniqueName(t)
	if err := a.WriteFull(notStriper+".0000000000000000", []byte("not striped")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Remove(notStriper + ".0000000000000000") })
	striperSrc := putStriper(t, conf, "radoscp-a", oneMiB)
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unknownKey := file("unknown.yaml", "window: 4\nwibble: 3\n")
	badYAML := file("bad.yaml", "window: [1, 2\n")
	badValue := file("value.yaml", "window: lots\n")
	listValue := file("list.yaml", "chunk: [1, 2]\n")
	badType := file("config.ini", "window = 4\n")
	batch := file("batch", "")
	missing := filepath.Join(dir, "no-such-dir", "config.yaml")

	S := "rados:radoscp-a/" + src
	SS := "striper:radoscp-a/" + striperSrc
	B := func(d string) string { return "rados:radoscp-b/" + d }
	BS := func(d string) string { return "striper:radoscp-b/" + d }
	cp := func(extra ...string) func(string) []string {
		return func(d string) []string { return append(append([]string{}, extra...), "--length", "1M", S, B(d)) }
	}
	cases := []badInput{
		// Addresses.
		{name: "unknown-scheme", args: func(d string) []string { return []string{"--length", "1M", "s3:radoscp-a/" + src, B(d)} },
			want: []string{`"s3"`, "expected rados:, striper: or cephfs:"}},
		{name: "no-scheme", args: func(d string) []string { return []string{"--length", "1M", S, "radoscp-b/" + d} },
			want: []string{"radoscp-b/", "expected SCHEME:"}},
		{name: "empty-pool", args: func(d string) []string { return []string{"--length", "1M", S, "rados:/" + d} },
			want: []string{"rados:/", "empty pool name"}},
		{name: "empty-namespace", args: func(d string) []string { return []string{"--length", "1M", S, "rados:radoscp-b//" + d} },
			want: []string{"radoscp-b//", "empty namespace"}},
		{name: "too-many-parts", args: func(d string) []string { return []string{"--length", "1M", S, "rados:radoscp-b/x/y/" + d} },
			want: []string{"radoscp-b/x/y/", "expected rados:POOL/NAME or rados:POOL/NAMESPACE/NAME"}},
		{name: "empty-name", args: func(d string) []string { return []string{"--length", "1M", S, "striper:radoscp-b/"} },
			want: []string{`"striper:radoscp-b/"`, "empty object name"}},
		{name: "control-character", args: func(d string) []string { return []string{"--length", "1M", S, B(d + "\x01")} },
			want: []string{`\x01`, "control character"}},
		{name: "missing-source-pool", args: func(d string) []string { return []string{"--length", "1M", "rados:nosuchpool-e2e/" + src, B(d)} },
			want: []string{"nosuchpool-e2e", "does not exist"}},
		{name: "missing-destination-pool", args: func(d string) []string { return []string{"--length", "1M", S, "rados:nosuchpool-e2e/" + d} },
			want: []string{"nosuchpool-e2e", "does not exist"}},
		{name: "missing-striper-source", args: func(d string) []string { return []string{"striper:radoscp-a/nosuch-" + d, BS(d)} },
			want: []string{"striper:radoscp-a/nosuch-", "does not exist"}},
		{name: "not-a-striper-source", args: func(d string) []string { return []string{"striper:radoscp-a/" + notStriper, BS(d)} },
			want: []string{"striper:radoscp-a/" + notStriper, "not a libradosstriper object"}},
		{name: "cephfs-relative", args: func(d string) []string { return []string{"--length", "1M", S, "cephfs:relative/" + d} },
			want: []string{"cephfs:relative/"}},
		// --allow-missing: the source does not exist, which is refused
		// (ENOENT, exit 1) when the source is opened, before the overlap
		// is seen.
		{name: "overlap", args: func(d string) []string {
			return []string{"--object-size", "1M", "--length", "1M", "--dst-offset", "512K", "--allow-missing", B(d), B(d)}
		}, want: []string{"overlap"}},
		{name: "one-argument", args: func(d string) []string { return []string{"--length", "1M", S} },
			want: []string{"got 1 argument"}},
		{name: "three-arguments", args: func(d string) []string { return []string{"--length", "1M", S, B(d), "extra"} },
			want: []string{"got 3 argument"}},

		// Numbers.
		{name: "missing-length", args: func(d string) []string { return []string{S, B(d)} },
			want: []string{S, "give --length"}},
		{name: "length-bad-suffix", args: func(d string) []string { return []string{"--length", "4X", S, B(d)} },
			want: []string{"4X"}},
		{name: "length-1Q", args: func(d string) []string { return []string{"--length", "1Q", S, B(d)} },
			want: []string{"--length", "1Q"}},
		{name: "length-negative", args: func(d string) []string { return []string{"--length=-1", S, B(d)} },
			want: []string{"--length", "-1"}},
		{name: "length-overflow", args: func(d string) []string { return []string{"--length", "99999999999999999999", S, B(d)} },
			want: []string{"99999999999999999999"}},
		{name: "length-suffix-overflow", args: func(d string) []string { return []string{"--length", "17179869184T", S, B(d)} },
			want: []string{"17179869184T"}},
		{name: "dst-offset-garbage", args: func(d string) []string { return []string{"--dst-offset", "abc", "--length", "1M", S, B(d)} },
			want: []string{"--dst-offset", `"abc"`}},
		{name: "window-abc", args: cp("--window", "abc"), want: []string{"window", `"abc"`}},
		{name: "window-negative", args: cp("--window", "-1"), want: []string{"-1", "expected a whole number from 0 to 128"}},
		{name: "window-over-in-flight", args: cp("--window", "256"), want: []string{"256", "from 0 to 128", "osd_client_message_cap"}},
		{name: "window-overflow", args: cp("--window", "99999999999999999999"), want: []string{"99999999999999999999"}},
		{name: "src-offset-overflow", args: func(d string) []string {
			return []string{"--src-offset", "18446744073709551615", "--length", "2", S, B(d)}
		}, want: []string{"18446744073709551615", "overflows"}},
		{name: "dst-offset-overflow", args: func(d string) []string {
			return []string{"--dst-offset", "18446744073709551615", "--length", "2", S, B(d)}
		}, want: []string{"18446744073709551615", "overflows"}},
		{name: "length-past-striper-eof", args: func(d string) []string { return []string{"--length", "2M", SS, BS(d)} },
			want: []string{"2097152", "past the source's EOF 1048576"}},
		{name: "src-offset-past-striper-eof", args: func(d string) []string { return []string{"--src-offset", "3M", SS, BS(d)} },
			want: []string{"3145728", "past the source's EOF 1048576"}},
		{name: "chunk-too-small", args: cp("--chunk", "1K"), want: []string{"1K", "expected a size from 64K to 1G"}},
		{name: "chunk-too-large", args: cp("--chunk", "2G"), want: []string{"2G", "expected a size from 64K to 1G"}},
		{name: "connect-timeout-negative", args: cp("--connect-timeout=-5s"), want: []string{"-5s"}},
		{name: "op-timeout-garbage", args: cp("--op-timeout", "xyz"), want: []string{"op-timeout", `"xyz"`}},

		// Layouts.
		{name: "object-size-not-64K", args: cp("--object-size", "1000"), want: []string{"1000", "not a multiple of 65536"}},
		{name: "stripe-unit-not-64K", args: cp("--object-size", "4M", "--stripe-unit", "32K"), want: []string{"32768", "not a multiple of 65536"}},
		{name: "object-size-not-multiple-of-stripe-unit", args: cp("--object-size", "4M", "--stripe-unit", "3M"),
			want: []string{"3M", "divides object-size 4M"}},
		{name: "stripe-count-0", args: cp("--stripe-count", "0"), want: []string{"stripe-count", `"0"`, "1 or more"}},
		{name: "stripe-count-negative", args: cp("--stripe-count=-1"), want: []string{"stripe-count", "-1"}},
		{name: "object-size-0", args: cp("--object-size", "0"), want: []string{"object-size", `"0"`, "1 or more bytes"}},
		{name: "striper-destination-bad-layout", args: func(d string) []string { return []string{"--stripe-unit", "32K", SS, BS(d)} },
			want: []string{"32768", "not a multiple of 65536"}},

		// Flags.
		{name: "unknown-flag", args: cp("--bogus"), want: []string{"--bogus"}},
		{name: "progress-sideways", args: cp("--progress", "sideways"), want: []string{"sideways", "expected auto, on or off"}},
		{name: "json-maybe", args: cp("--json=maybe"), want: []string{"maybe"}},
		{name: "no-progress-and-progress-on", args: cp("--no-progress", "--progress", "on"), want: []string{"--no-progress", "--progress on"}},
		{name: "batch-with-arguments", args: func(d string) []string { return []string{"--batch", batch, S, B(d)} },
			want: []string{"--batch", "got 2"}},
		{name: "resume-raw-destination", args: cp("--resume"), want: []string{"--resume", "records its EOF"}},
		{name: "dst-size-striper", args: func(d string) []string { return []string{"--dst-size", "1M", "--length", "1M", S, BS(d)} },
			want: []string{"--dst-size", "rados: destinations only"}},
		{name: "unknown-command", args: func(d string) []string { return []string{"frobnicate", d} },
			want: []string{"frobnicate"}},

		// Config files.
		{name: "config-unknown-key", args: cp("--config", unknownKey), want: []string{"wibble", "unknown"}},
		{name: "config-missing", args: cp("--config", missing), want: []string{missing}},
		{name: "config-unreadable", args: cp("--config", dir), want: []string{dir}},
		{name: "config-bad-yaml", args: cp("--config", badYAML), want: []string{badYAML}},
		{name: "config-bad-value", args: cp("--config", badValue), want: []string{`"lots"`, badValue, "expected a whole number"}},
		{name: "config-list-value", args: cp("--config", listValue), want: []string{"chunk", "expected a single value"}},
		{name: "config-unknown-type", args: cp("--config", badType), want: []string{badType, "unknown type"}},

		// Environment.
		{name: "env-window-abc", env: []string{"RADOSCP_WINDOW=abc"}, args: cp(), want: []string{"RADOSCP_WINDOW", `"abc"`, "expected a whole number"}},
		{name: "env-chunk-1Q", env: []string{"RADOSCP_CHUNK=1Q"}, args: cp(), want: []string{"RADOSCP_CHUNK", `"1Q"`}},
		{name: "env-object-size-0", env: []string{"RADOSCP_OBJECT_SIZE=0"}, args: cp(), want: []string{"RADOSCP_OBJECT_SIZE", `"0"`}},
		{name: "env-progress", env: []string{"RADOSCP_PROGRESS=maybe"}, args: cp(), want: []string{"RADOSCP_PROGRESS", "maybe", "expected auto, on or off"}},
		{name: "env-stripe-unit-not-64K", env: []string{"RADOSCP_STRIPE_UNIT=32K"}, args: cp(), want: []string{"32768", "not a multiple of 65536"}},
		{name: "env-config-missing", env: []string{"RADOSCP_CONFIG=" + missing}, args: cp(), want: []string{missing}},
		{name: "env-op-timeout", env: []string{"RADOSCP_OP_TIMEOUT=soon"}, args: cp(), want: []string{"RADOSCP_OP_TIMEOUT", `"soon"`, "expected a duration"}},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d bad-input cases", len(cases))
	}
	// The user's own config file must not change what the cases mean.
	home := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := test.UniqueName(t)
			args := tc.args(d)
			if len(args) == 0 || args[0] != "frobnicate" {
				args = append([]string{"cp"}, args...)
			}
			args = append([]string{args[0], "-c", conf}, args[1:]...)
			if args[0] == "frobnicate" {
				args = args[:1]
			}
			r := runCmd(t, append(append([]string{}, home...), tc.env...), args...)
			if r.code != 2 {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout is not empty: %q", r.stdout)
			}
			msg := strings.TrimRight(r.stderr, "\n")
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "radoscp: ") {
				t.Errorf("stderr is not one line starting radoscp: %q", r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q does not say %q", msg, w)
				}
			}
			if objs := listNamed(t, conf, "radoscp-b", d); len(objs) > 0 {
				t.Errorf("objects written to radoscp-b: %q", objs)
			}
		})
	}
}

// listNamed lists every object in pool, in every namespace, whose name
// contains s, as "NAMESPACE\tNAME" lines.
func listNamed(t *testing.T, conf, pool, s string) []string {
	t.Helper()
	out, err := exec.Command("rados", "-c", conf, "-p", pool, "--all", "ls").Output()
	if err != nil {
		t.Fatalf("rados ls %s: %v", pool, err)
	}
	var found []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && strings.Contains(l, s) {
			found = append(found, l)
		}
	}
	return found
}

// putStriper writes a new striped object of size random bytes with rados
// --striper put and removes it at the end; it returns its name.
func putStriper(t *testing.T, conf, pool string, size int) string {
	t.Helper()
	name := test.UniqueName(t)
	in := filepath.Join(t.TempDir(), "striper-src")
	data := make([]byte, size)
	rand.Read(data)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := test.RadosCLI(conf, "-p", pool, "--striper", "put", name, in); err != nil {
		t.Fatalf("rados --striper put: %v\n%s", err, o)
	}
	t.Cleanup(func() { exec.Command("rados", "-c", conf, "-p", pool, "--striper", "rm", name).Run() })
	return name
}
