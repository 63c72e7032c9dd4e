package shard

import (
	"fmt"
	"hash/fnv"
	"path"
	"strconv"
	"strings"
)

// Shard is one worker's share of a tree, or the final pass over all of it.
type Shard struct {
	// K and N: this worker is K of N, 0 <= K < N. For the final pass
	// (Finish), N is the number of workers when given, else 0.
	K, N int
	// Finish marks the final pass: it takes every path.
	Finish bool
	// ByDir: a file's share is its directory's (Key), so that each
	// directory's entries are made by one worker alone.
	ByDir bool
}

// Key is what decides the share of the entry at rel, a path relative to
// the tree's root: the path itself, or with ByDir its directory's ("."
// for the root's entries).
func (s Shard) Key(rel string) string {
	if s.ByDir {
		return path.Dir(rel)
	}
	return rel
}

// By names the --shard-by values: "path" (the default) and "dir".
func (s Shard) By() string {
	if s.ByDir {
		return "dir"
	}
	return "path"
}

// ParseBy reads a --shard-by value into s: "path" or "" (each file by
// its path), "dir" (each file by its directory's path).
func (s Shard) ParseBy(by string) (Shard, error) {
	switch by {
	case "", "path":
		s.ByDir = false
	case "dir":
		s.ByDir = true
	default:
		return s, fmt.Errorf("shard-by %q: expected path (each file by its own path) or dir (each file by its directory's)", by)
	}
	return s, nil
}

// None is no sharding: one run takes every path.
var None = Shard{}

// On reports whether s is a worker's share or the final pass.
func (s Shard) On() bool { return s.N > 0 || s.Finish }

// Worker reports whether s is a worker's share (not the final pass).
func (s Shard) Worker() bool { return s.N > 0 && !s.Finish }

func (s Shard) String() string {
	switch {
	case s.Finish && s.N > 0:
		return fmt.Sprintf("finish/%d", s.N)
	case s.Finish:
		return "finish"
	case s.N > 0:
		return fmt.Sprintf("%d/%d", s.K, s.N)
	}
	return ""
}

// EnvIndex names the environment variables that `auto` reads, in order:
// a Kubernetes Indexed Job's completion index, a Slurm job array's task id.
var EnvIndex = []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"}

// Parse reads a --shard value: "K/N"; "$VAR/N" or "${VAR}/N", K taken
// from environment variable VAR; "auto/N", K from the first of EnvIndex
// that is set; "finish" or "finish/N", the final pass. getenv looks the
// variables up (os.Getenv). Errors name the value and what was expected.
func Parse(spec string, getenv func(string) string) (Shard, error) {
	kPart, nPart, ok := strings.Cut(spec, "/")
	if spec == "finish" {
		return Shard{Finish: true}, nil
	}
	if !ok {
		return None, fmt.Errorf("shard %q: expected K/N (worker K of N, 0 <= K < N), auto/N, $VAR/N or finish", spec)
	}
	n, err := strconv.Atoi(nPart)
	if err != nil || n < 1 {
		return None, fmt.Errorf("shard %q: N %q is not a whole number of workers, at least 1", spec, nPart)
	}
	if kPart == "finish" {
		return Shard{Finish: true, N: n}, nil
	}
	from := ""
	switch {
	case kPart == "auto":
		for _, name := range EnvIndex {
			if v := getenv(name); v != "" {
				kPart, from = v, "$"+name+" = "
				break
			}
		}
		if from == "" {
			return None, fmt.Errorf("shard %q: auto takes K from $%s, and none of them is set", spec, strings.Join(EnvIndex, " or $"))
		}
	case strings.HasPrefix(kPart, "$"):
		name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(kPart, "$"), "{"), "}")
		v := getenv(name)
		if v == "" {
			return None, fmt.Errorf("shard %q: environment variable $%s is not set", spec, name)
		}
		kPart, from = v, "$"+name+" = "
	}
	k, err := strconv.Atoi(kPart)
	if err != nil || k < 0 {
		return None, fmt.Errorf("shard %q: K (%s%q) is not a whole number", spec, from, kPart)
	}
	if k >= n {
		return None, fmt.Errorf("shard %q: K (%s%d) must be below N (%d): workers are numbered 0 to %d", spec, from, k, n, n-1)
	}
	return Shard{K: k, N: n}, nil
}

// Of is the worker, of n, whose share key falls in: FNV-1a 64 of the
// key, modulo n. The hash is fixed: every worker, whatever its host,
// version or walk order, gives a key the same worker.
func Of(key string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(n))
}

// Owns reports whether s takes the entry at rel (relative to the tree's
// root): the final pass and no sharding take every entry, worker K of N
// those whose Key Of gives K.
func (s Shard) Owns(rel string) bool {
	if !s.Worker() {
		return true
	}
	return Of(s.Key(rel), s.N) == s.K
}
