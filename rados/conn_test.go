package rados

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/store"
)

// A monitor address nobody listens on must fail within the timeout with
// ETIMEDOUT and a hint, not hang.
func TestConnectTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // now nothing answers there

	dir := t.TempDir()
	conf := filepath.Join(dir, "ceph.conf")
	keyring := filepath.Join(dir, "keyring")
	os.WriteFile(conf, []byte("[global]\nmon_host = v2:"+addr+"\nauth_client_required = none\n"), 0o600)
	os.WriteFile(keyring, nil, 0o600)

	start := time.Now()
	_, err = Connect(ConnConfig{ConfPath: conf, Keyring: keyring, IgnoreCephArgs: true, ConnectTimeout: 2 * time.Second})
	if err == nil {
		t.Fatal("connect to a dead monitor succeeded")
	}
	if elapsed := time.Since(start); elapsed > 60*time.Second {
		t.Fatalf("connect took %s, want about the 2s timeout", elapsed)
	}
	if !errors.Is(err, store.ErrTimedOut) || !strings.Contains(err.Error(), "no monitor answered") {
		t.Fatalf("got %v, want ETIMEDOUT with a hint", err)
	}
}

func TestConnectMissingConf(t *testing.T) {
	_, err := Connect(ConnConfig{ConfPath: filepath.Join(t.TempDir(), "nope.conf"), IgnoreCephArgs: true})
	if err == nil || !strings.Contains(err.Error(), "nope.conf") || !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("got %v, want ENOENT naming the conf", err)
	}
}

func TestConnectBadName(t *testing.T) {
	_, err := Connect(ConnConfig{Name: "admin"})
	if err == nil || !strings.Contains(err.Error(), `"admin"`) {
		t.Fatalf("got %v, want an error naming the bad --name", err)
	}
}

// A connection gathers no more of the client's log in memory than it
// writes, unless the conf or CEPH_ARGS set debug_client: their level is
// kept.
func TestQuietClientLog(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, conf, cephArgs, want string
	}{
		{"default", "", "", clientLogQuiet},
		{"set in the conf", "debug_client = 1/10\n", "", "1/10"},
		{"set in CEPH_ARGS", "", "--debug_client=0/20", "0/20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".conf")
			if err := os.WriteFile(conf, []byte("[global]\nmon_host = v2:127.0.0.1:1\n"+tc.conf), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("CEPH_ARGS", tc.cephArgs)
			rc, err := newConn(ConnConfig{})
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Shutdown()
			before, err := rc.GetConfigOption("debug_client")
			if tc.cephArgs == "" && (err != nil || before != clientLogDefault) {
				t.Fatalf("a new client's debug_client is %q (%v); the case assumes Ceph's default %q", before, err, clientLogDefault)
			}
			if err := configure(rc, ConnConfig{ConfPath: conf}); err != nil {
				t.Fatal(err)
			}
			if got, err := rc.GetConfigOption("debug_client"); err != nil || got != tc.want {
				t.Fatalf("debug_client %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}
