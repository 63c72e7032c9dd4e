package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// A full pool makes librados hold writes, silently, until space is freed.
// radoscp's writes carry FULL_TRY, so they fail with EDQUOT (a pool over
// its quota) or ENOSPC instead; these tests fill a pool by its quota,
// which the OSD map flags exactly as a full OSD does.

// poolFlags is pool's flags in the OSD map, as `ceph osd dump` reads them.
func poolFlags(t *testing.T, pool string) string {
	t.Helper()
	var m struct {
		Pools []struct {
			Name  string `json:"pool_name"`
			Flags string `json:"flags_names"`
		} `json:"pools"`
	}
	if err := json.Unmarshal([]byte(test.Ceph(t, "osd", "dump", "--format", "json")), &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Pools {
		if p.Name == pool {
			return p.Flags
		}
	}
	t.Fatalf("pool %s is not in the OSD map", pool)
	return ""
}

// quotaPool is a new pool of the cluster's default size, deleted when t
// ends, for a test to fill by its quota without disturbing other tests.
func quotaPool(t *testing.T) string {
	t.Helper()
	name := test.UniqueName(t)
	test.Ceph(t, "osd", "pool", "create", name, "8", "8")
	t.Cleanup(func() { test.Ceph(t, "osd", "pool", "delete", name, name, "--yes-i-really-really-mean-it") })
	test.Ceph(t, "osd", "pool", "application", "enable", name, "rados")
	return name
}

func overQuota(t *testing.T, pool string) bool {
	return strings.Contains(poolFlags(t, pool), "full_quota")
}

// A copy into a pool the OSD map already marks over its quota fails at
// once, exit 1, writing nothing (the run would hang without the fix; the
// guard only catches that).
func TestE2EPoolOverQuotaFailsFast(t *testing.T) {
	conf := test.Conf(t)
	pool := quotaPool(t)
	src, _ := makeStriperSource(t, conf, "radoscp-a", 3<<20)
	test.Ceph(t, "osd", "pool", "set-quota", pool, "max_bytes", "1")
	writeObjects(t, test.OpenPool(t, conf, pool), "filler", 1, oneMiB)
	waitFor(t, nil, 2*time.Minute, "the quota flag in the OSD map", func() bool { return overQuota(t, pool) })

	dst := test.UniqueName(t)
	r := startCmd(t, nil, "cp", "-c", conf, "--no-progress", "striper:radoscp-a/"+src, "striper:"+pool+"/"+dst).wait(t, 2*time.Minute)
	if r.code != 1 || !strings.Contains(r.stderr, "EDQUOT") || !strings.Contains(r.stderr, "over its quota") {
		t.Fatalf("exit %d, want 1 with EDQUOT and the quota named\n%s", r.code, r.stderr)
	}
	if objs := striperObjects(t, conf, pool, dst); len(objs) != 0 {
		t.Fatalf("a copy refused before writing left %v", objs)
	}
}

// The quota is reached in the middle of a slow copy: the copy fails with
// EDQUOT instead of waiting, publishes the complete prefix and exits 3;
// once the quota is lifted --resume finishes it.
func TestE2EPoolQuotaReachedMidCopy(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 1.0)
	pool := quotaPool(t)
	src, data := makeStriperSource(t, conf, "radoscp-a", 32<<20)
	dst := test.UniqueName(t)
	run := startCmd(t, nil, "cp", "-c", slow, "--window", "1", "--no-progress", "--json",
		"striper:radoscp-a/"+src, "striper:"+pool+"/"+dst)
	waitFor(t, run, 2*time.Minute, "a published prefix", func() bool { return striperSize(t, conf, pool, dst) > 0 })
	test.Ceph(t, "osd", "pool", "set-quota", pool, "max_bytes", "1")
	// The condition under test: the pool is over its quota while the
	// copy still runs.
	waitFor(t, run, 2*time.Minute, "the quota flag in the OSD map while the copy runs", func() bool { return overQuota(t, pool) })
	r := run.wait(t, 2*time.Minute)
	if r.code != 3 || !strings.Contains(r.stderr, "EDQUOT") || !strings.Contains(r.stderr, "over its quota") {
		t.Fatalf("exit %d, want 3 with EDQUOT\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	m := parseJSON(t, r)
	published := striperSize(t, conf, pool, dst)
	if published == 0 || published >= uint64(len(data)) || m["published_eof"] != float64(published) || m["errno"] != float64(122) {
		t.Fatalf("published %d of %d; JSON %s", published, len(data), r.stdout)
	}
	t.Logf("the quota stopped the copy at %d of %d bytes", published, len(data))

	// rados --striper get takes a lock, a write a full pool holds: lift
	// the quota before reading the prefix back.
	test.Ceph(t, "osd", "pool", "set-quota", pool, "max_bytes", "0")
	waitFor(t, nil, 2*time.Minute, "the quota flag cleared", func() bool { return !overQuota(t, pool) })
	if got := checkPublishedPrefix(t, conf, pool, dst, data); got != published {
		t.Fatalf("published %d bytes, read back %d", published, got)
	}
	r = runCmd(t, nil, "cp", "-c", conf, "--resume", "--no-progress", "striper:radoscp-a/"+src, "striper:"+pool+"/"+dst)
	if r.code != 0 {
		t.Fatalf("--resume: exit %d\n%s", r.code, r.stderr)
	}
	size, got := striperRead(t, conf, pool, dst)
	if size != uint64(len(data)) {
		t.Fatalf("resumed copy: %d bytes, want %d", size, len(data))
	}
	test.Equal(t, "the resumed copy", got, data)
}
