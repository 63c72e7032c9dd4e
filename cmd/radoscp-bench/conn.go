package main

import (
	"errors"
	"fmt"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/rados"
)

func connect(cfg config.Config) (*rados.Conn, error) { return connectWith(cfg, nil) }

// connectWith connects as radoscp does, with extra librados options.
func connectWith(cfg config.Config, options map[string]string) (*rados.Conn, error) {
	return rados.Connect(rados.ConnConfig{
		Options:        options,
		ConfPath:       cfg.Conf,
		ID:             cfg.ID,
		Name:           cfg.Name,
		Keyring:        cfg.Keyring,
		ConnectTimeout: cfg.ConnectTimeout,
		OpTimeout:      cfg.OpTimeout,
	})
}

// openPool opens --pool; a missing pool is invalid input.
func openPool(conn *rados.Conn, pool, namespace string) (*rados.Pool, error) {
	p, err := conn.OpenPool(pool, namespace)
	if errors.Is(err, rados.ErrNotFound) {
		return nil, usage("--pool %s: pool %q does not exist", pool, pool)
	}
	return p, err
}

// mib is n bytes in MiB, for names and titles.
func mib(n uint64) string { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }
