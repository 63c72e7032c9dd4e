package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	gorados "github.com/ceph/go-ceph/rados"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/store"
)

// keyringError names the entity and the keyring of a connection that
// failed to authenticate. The first keyring that exists (the one
// librados reads) but cannot be read is said so, not called a failed
// authentication; a keyring that cannot be read, and keyrings of which
// none exists, are invalid input, as a missing -c is.
func keyringError(cfg config.Config, err error) error {
	switch store.ErrnoOf(err) {
	case syscall.ENOENT, syscall.EACCES, syscall.EPERM, syscall.EIO, syscall.EINVAL:
	default:
		return err
	}
	paths := keyringPaths(cfg)
	missing := 0
	for _, p := range paths {
		f, oerr := os.Open(p)
		if errors.Is(oerr, os.ErrNotExist) {
			missing++
			continue
		}
		if oerr != nil {
			return UsageError{fmt.Errorf("cannot read keyring %s: %w", p, errors.Unwrap(oerr))}
		}
		f.Close()
		break
	}
	what := "keyring"
	if cfg.Keyring != "" {
		what = "--keyring"
	}
	err = fmt.Errorf("as %s with %s %s: %w", entity(cfg), what, markMissing(paths), err)
	if len(paths) > 0 && missing == len(paths) {
		return UsageError{err}
	}
	return err
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

// keyringPaths is where librados looks for the entity's key, in its
// order: --keyring, else the conf's keyring option (read with the same
// conf, CEPH_ARGS and entity, with $cluster and $name expanded).
func keyringPaths(cfg config.Config) []string {
	paths := cfg.Keyring
	if paths == "" {
		rc, err := gorados.NewConnWithUser(strings.TrimPrefix(entity(cfg), "client."))
		if cfg.Name != "" {
			rc, err = gorados.NewConnWithClusterAndUser("ceph", cfg.Name)
		}
		if err != nil {
			return nil
		}
		defer rc.Shutdown()
		if cfg.Conf != "" {
			err = rc.ReadConfigFile(cfg.Conf)
		} else {
			err = rc.ReadDefaultConfigFile()
		}
		if err != nil {
			return nil
		}
		_ = rc.ParseDefaultConfigEnv()
		paths, _ = rc.GetConfigOption("keyring")
	}
	return strings.FieldsFunc(paths, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' })
}

// markMissing is paths as a message lists them, each marked when missing.
func markMissing(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if _, err := os.Stat(p); err != nil {
			out[i] += " (missing)"
		}
	}
	return strings.Join(out, ", ")
}
