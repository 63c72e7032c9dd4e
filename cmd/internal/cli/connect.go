package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/rados"
)

// Connector connects a binary's commands to the cluster, for one run. A
// zero Connector is not valid: Program and Warnings must be set.
type Connector struct {
	// Program names the binary in its warnings ("radoscp").
	Program string
	// Warnings is where the keyring warning goes.
	Warnings io.Writer

	// keyringWarning is printed at most once per run: a batch connects
	// once, but a warning per copy would bury the results.
	keyringWarning sync.Once
}

// Connect connects as cfg says, with extra librados options. A -c file
// that cannot be read, and a keyring that is missing or cannot be read,
// are invalid input (UsageError), found before anything is opened; a
// failure to authenticate names the entity and the keyrings looked in.
// A keyring readable by group or others gets a warning, once per run.
func (c *Connector) Connect(cfg config.Config, options map[string]string) (*rados.Conn, error) {
	if err := checkConf(cfg); err != nil {
		return nil, err
	}
	conn, err := rados.Connect(rados.ConnConfig{
		Options:        options,
		ConfPath:       cfg.Conf,
		ID:             cfg.ID,
		Name:           cfg.Name,
		Keyring:        cfg.Keyring,
		ConnectTimeout: cfg.ConnectTimeout,
		OpTimeout:      cfg.OpTimeout,
	})
	if err != nil {
		return nil, keyringError(cfg, err)
	}
	c.warnOpenKeyring(conn, cfg.Keyring)
	return conn, nil
}

// checkConf refuses a -c file that does not exist or cannot be read.
func checkConf(cfg config.Config) error {
	if cfg.Conf == "" {
		return nil
	}
	f, err := os.Open(cfg.Conf)
	if err != nil {
		return Usage("-c %s: %v", cfg.Conf, errors.Unwrap(err))
	}
	f.Close()
	return nil
}

// warnOpenKeyring warns when a keyring the connection may read its key
// from is readable by group or others: anyone who can read it can act as
// the client. The paths are explicit (--keyring), else the conf's keyring
// option (a list: librados takes the first that exists). Files that do
// not exist or cannot be stat'ed are not this check's business.
func (c *Connector) warnOpenKeyring(conn *rados.Conn, explicit string) {
	if p, mode, open := conn.OpenKeyring(explicit); open {
		c.keyringWarning.Do(func() {
			fmt.Fprintf(c.Warnings, "%s: warning: keyring %s is readable by group or others (mode %04o); anyone who can read it can act as this client: chmod 600 it\n", c.Program, p, mode)
		})
	}
}
