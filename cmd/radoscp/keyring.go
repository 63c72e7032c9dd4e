package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	gorados "github.com/ceph/go-ceph/rados"

	"github.com/radoscp/radoscp/config"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
)

// warnOpenKeyring warns on w when a keyring the connection may read its
// key from is readable by group or others: anyone who can read it can act
// as the client. The paths are --keyring, else the conf's keyring option
// (a list: librados takes the first that exists). Files that do not
// exist or cannot be stat'ed are not this check's business.
func (inv *invocation) warnOpenKeyring(w io.Writer, conn *rados.Conn, explicit string) {
	if p, mode, open := conn.OpenKeyring(explicit); open {
		inv.keyringWarning.Do(func() {
			fmt.Fprintf(w, "radoscp: warning: keyring %s is readable by group or others (mode %04o); anyone who can read it can act as this client: chmod 600 it\n", p, mode)
		})
	}
}

// entity is the cephx name the connection authenticates as.
func entity(cfg config.Config) string {
	switch {
	case cfg.Name != "":
		return cfg.Name
	case cfg.ID != "":
		return "client." + cfg.ID
	}
	return "client.admin"
}

// keyringPaths is where librados looks for the entity's key: --keyring,
// else the conf's keyring option (read with the same conf, CEPH_ARGS and
// entity, with $cluster and $name expanded), each marked when missing.
func keyringPaths(cfg config.Config) string {
	paths := cfg.Keyring
	if paths == "" {
		rc, err := gorados.NewConnWithUser(strings.TrimPrefix(entity(cfg), "client."))
		if cfg.Name != "" {
			rc, err = gorados.NewConnWithClusterAndUser("ceph", cfg.Name)
		}
		if err != nil {
			return ""
		}
		defer rc.Shutdown()
		if cfg.Conf != "" {
			err = rc.ReadConfigFile(cfg.Conf)
		} else {
			err = rc.ReadDefaultConfigFile()
		}
		if err != nil {
			return ""
		}
		_ = rc.ParseDefaultConfigEnv()
		paths, _ = rc.GetConfigOption("keyring")
	}
	var out []string
	for _, p := range strings.FieldsFunc(paths, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' }) {
		if _, err := os.Stat(p); err != nil {
			p += " (missing)"
		}
		out = append(out, p)
	}
	return strings.Join(out, ", ")
}

// keyringError names the entity and the keyring of a connection that
// failed to authenticate.
func keyringError(cfg config.Config, err error) error {
	switch store.ErrnoOf(err) {
	case syscall.ENOENT, syscall.EACCES, syscall.EPERM, syscall.EIO, syscall.EINVAL:
	default:
		return err
	}
	what := "keyring"
	if cfg.Keyring != "" {
		what = "--keyring"
	}
	return fmt.Errorf("as %s with %s %s: %w", entity(cfg), what, keyringPaths(cfg), err)
}
