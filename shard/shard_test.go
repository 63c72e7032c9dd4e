package shard

import (
	"fmt"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParse(t *testing.T) {
	for _, c := range []struct {
		spec string
		env  map[string]string
		want Shard
	}{
		{"0/3", nil, Shard{K: 0, N: 3}},
		{"2/3", nil, Shard{K: 2, N: 3}},
		{"0/1", nil, Shard{K: 0, N: 1}},
		{"finish", nil, Shard{Finish: true}},
		{"finish/3", nil, Shard{Finish: true, N: 3}},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "3"}, Shard{K: 3, N: 4}},
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, Shard{K: 1, N: 4}},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "2", "SLURM_ARRAY_TASK_ID": "1"}, Shard{K: 2, N: 4}},
		{"$JOB_COMPLETION_INDEX/3", map[string]string{"JOB_COMPLETION_INDEX": "1"}, Shard{K: 1, N: 3}},
		{"${IDX}/3", map[string]string{"IDX": "2"}, Shard{K: 2, N: 3}},
	} {
		got, err := Parse(c.spec, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.spec, got, err, c.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct {
		spec string
		env  map[string]string
		want string // in the message
	}{
		{"3/3", nil, "K (3) must be below N (3)"},
		{"0/0", nil, `N "0"`},
		{"1/-2", nil, `N "-2"`},
		{"x/3", nil, `K ("x")`},
		{"-1/3", nil, `K ("-1")`},
		{"1", nil, `shard "1": expected K/N`},
		{"", nil, `shard "": expected K/N`},
		{"1/three", nil, `N "three"`},
		{"auto/3", nil, "none of them is set"},
		{"$JOB_COMPLETION_INDEX/3", nil, "$JOB_COMPLETION_INDEX is not set"},
		{"$IDX/3", map[string]string{"IDX": "7"}, "K ($IDX = 7) must be below N (3)"},
		{"auto/3", map[string]string{"SLURM_ARRAY_TASK_ID": "a1"}, `K ($SLURM_ARRAY_TASK_ID = "a1")`},
		{"finish/0", nil, `N "0"`},
	} {
		_, err := Parse(c.spec, env(c.env))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v; want an error with %q", c.spec, err, c.want)
		}
	}
}

// The hash is part of the contract (workers of different versions must
// agree): these values are FNV-1a 64 as published.
func TestOfIsFNV1a64(t *testing.T) {
	if got := Of("", 1<<62); got != int(0xcbf29ce484222325%(1<<62)) {
		t.Fatalf("Of(\"\") = %x: not FNV-1a 64's offset basis", got)
	}
	if got := Of("a", 1<<62); got != int(0xaf63dc4c8601ec8c%(1<<62)) {
		t.Fatalf("Of(\"a\") = %x", got)
	}
}

// Every key falls to exactly one worker, and the shares are even.
func TestOwnsPartitions(t *testing.T) {
	const n, keys = 3, 30000
	count := make([]int, n)
	for i := 0; i < keys; i++ {
		key := fmt.Sprintf("dir%d/file%d", i%17, i)
		owners := 0
		for k := 0; k < n; k++ {
			if (Shard{K: k, N: n}).Owns(key) {
				owners++
				count[k]++
			}
		}
		if owners != 1 {
			t.Fatalf("%q has %d owners", key, owners)
		}
		if !(Shard{Finish: true, N: n}).Owns(key) || !None.Owns(key) {
			t.Fatalf("the final pass or an unsharded run does not take %q", key)
		}
	}
	for k, c := range count {
		if c < keys/n*9/10 || c > keys/n*11/10 {
			t.Errorf("worker %d of %d takes %d of %d keys", k, n, c, keys)
		}
	}
}

// With ByDir a path's share is its directory's: every entry of one
// directory goes to one worker, the root's entries by ".".
func TestByDirKeysByDirectory(t *testing.T) {
	s, err := Shard{K: 1, N: 3}.ParseBy("dir")
	if err != nil || !s.ByDir || s.By() != "dir" {
		t.Fatalf("ParseBy(dir): %+v, %v", s, err)
	}
	for rel, want := range map[string]string{"a/b/f": "a/b", "f": ".", "a/g": "a"} {
		if got := s.Key(rel); got != want {
			t.Errorf("Key(%q) = %q; want %q", rel, got, want)
		}
	}
	for _, d := range []string{"a", "a/b", "c", "."} {
		own := s.Owns(d + "/x")
		for i := 0; i < 50; i++ {
			if s.Owns(fmt.Sprintf("%s/f%d", d, i)) != own {
				t.Fatalf("entries of %s go to different workers", d)
			}
		}
	}
	if byPath, _ := s.ParseBy("path"); byPath.ByDir || byPath.Key("a/b/f") != "a/b/f" {
		t.Fatalf("ParseBy(path): %+v keys a/b/f as %q", byPath, byPath.Key("a/b/f"))
	}
	if _, err := s.ParseBy("file"); err == nil || !strings.Contains(err.Error(), `shard-by "file": expected path`) {
		t.Fatalf("ParseBy(file): %v; want an error naming the value", err)
	}
}
