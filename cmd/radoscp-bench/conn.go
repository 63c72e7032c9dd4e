package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/radoscp/radoscp/cmd/internal/cli"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
)

func connect(cfg config.Config) (*rados.Conn, error) { return connectWith(cfg, nil) }

// connector connects as radoscp does: the -c and keyring checks, the
// keyring warning once per process (a contender runs in a process of its
// own).
var connector = &cli.Connector{Program: "radoscp-bench", Warnings: os.Stderr}

// connectWith connects as radoscp does, with extra librados options.
func connectWith(cfg config.Config, options map[string]string) (*rados.Conn, error) {
	return connector.Connect(cfg, options)
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
