package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
)

func connect(cfg config.Config) (*rados.Conn, error) { return connectWith(cfg, nil) }

// connectWith connects as radoscp does, with extra librados options.
func connectWith(cfg config.Config, options map[string]string) (*rados.Conn, error) {
	conn, err := rados.Connect(rados.ConnConfig{
		Options:        options,
		ConfPath:       cfg.Conf,
		ID:             cfg.ID,
		Name:           cfg.Name,
		Keyring:        cfg.Keyring,
		ConnectTimeout: cfg.ConnectTimeout,
		OpTimeout:      cfg.OpTimeout,
	})
	if err == nil {
		warnOpenKeyring(os.Stderr, conn, cfg.Keyring)
	}
	return conn, err
}

// openPool opens --pool; a missing pool is invalid input.
func openPool(conn *rados.Conn, pool, namespace string) (*rados.Pool, error) {
	p, err := conn.OpenPool(pool, namespace)
	if errors.Is(err, store.ErrNotFound) {
		return nil, usage("--pool %s: pool %q does not exist", pool, pool)
	}
	return p, err
}

// mib is n bytes in MiB, for names and titles.
func mib(n uint64) string { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }

// keyringWarning is printed at most once per process.
var keyringWarning sync.Once

// warnOpenKeyring warns, as radoscp does, when the keyring the connection
// may read its key from (--keyring, else the conf's keyring option: a
// list, of which librados takes the first that exists) is readable by
// group or others.
func warnOpenKeyring(w io.Writer, conn *rados.Conn, explicit string) {
	if p, mode, open := conn.OpenKeyring(explicit); open {
		keyringWarning.Do(func() {
			fmt.Fprintf(w, "radoscp-bench: warning: keyring %s is readable by group or others (mode %04o); anyone who can read it can act as this client: chmod 600 it\n", p, mode)
		})
	}
}
