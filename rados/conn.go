package rados

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	gorados "github.com/ceph/go-ceph/rados"
	"github.com/radoscp/radoscp/store"
)

// ConnConfig says how to reach a cluster, with the same knobs as Ceph's own
// tools: -c/--conf, --id or --name, --keyring, and CEPH_ARGS.
type ConnConfig struct {
	// ConfPath is the ceph.conf to read. Empty means librados' own search:
	// $CEPH_CONF, then /etc/ceph/ceph.conf, ~/.ceph/config, ./ceph.conf.
	ConfPath string
	// ID is the client id ("admin" for client.admin). Name, the full
	// "TYPE.ID", wins when both are set. Both empty means client.admin.
	ID, Name string
	// Keyring overrides the conf's keyring path.
	Keyring string
	// IgnoreCephArgs skips the CEPH_ARGS environment variable, which is
	// otherwise applied over the conf file, as Ceph's tools do.
	IgnoreCephArgs bool
	// Options are further config options ("ms_inject_delay_max": "0.01"),
	// applied last.
	Options map[string]string
	// ConnectTimeout bounds the wait for a monitor. Zero means 30s.
	ConnectTimeout time.Duration
	// OpTimeout, when positive, fails OSD and monitor operations that take
	// longer with ETIMEDOUT instead of waiting forever.
	OpTimeout time.Duration
}

// Conn is a connection to a cluster. Close waits for every call made
// through it: librados cannot cancel an operation in flight, and
// destroying an I/O context or shutting the client down under one is a use
// after free. Synchronous calls (reads, writes, stats, xattrs, locks, pool
// opens) hold the connection for their duration; asynchronous copies are
// tracked until their completion.
type Conn struct {
	rc *gorados.Conn

	// life is held for reading across every call and every copy
	// submission, and for writing by Close, so no call can slip in
	// between Close's snapshot and shutdown, and none is running when the
	// I/O contexts are destroyed.
	life   sync.RWMutex
	closed bool
	// stats counts the stats in flight (StatAsync), which Close waits
	// for as it does for copies.
	stats sync.WaitGroup

	// probe is the check, made once per connection before its first
	// copy-from, that librados builds COPY_FROM2 ops radoscp can set the
	// truncate flag on; probeErr is its EOPNOTSUPP when it cannot.
	probe    sync.Once
	probeErr error

	mu      sync.Mutex // guards pending, pools and lockReads
	pending map[*Copy]struct{}
	pools   []*Pool
	// lockReads are the states of the exclusive locks this client
	// took, read in the background for their release (lockstate.go).
	lockReads map[lockKey]*lockRead
	sources   map[store.Location]*Pool // copy-from sources, by pool, namespace and snap
}

// Connect reads the configuration and connects (rados_create2,
// rados_conf_read_file, rados_conf_parse_env, rados_connect). It fails with
// ETIMEDOUT when no monitor answers within cfg.ConnectTimeout.
func Connect(cfg ConnConfig) (*Conn, error) {
	rc, err := newConn(cfg)
	if err != nil {
		return nil, err
	}
	if err := configure(rc, cfg); err != nil {
		rc.Shutdown()
		return nil, err
	}
	if err := rc.Connect(); err != nil {
		rc.Shutdown()
		e := wrap("connect", "", err)
		var re *store.Error
		if errors.As(e, &re) {
			re.Detail = connectHint(cfg, re.Errno)
		}
		return nil, e
	}
	return &Conn{rc: rc, pending: make(map[*Copy]struct{})}, nil
}

func newConn(cfg ConnConfig) (*gorados.Conn, error) {
	var (
		rc  *gorados.Conn
		err error
	)
	switch {
	case cfg.Name != "":
		if !strings.Contains(cfg.Name, ".") {
			return nil, fmt.Errorf("invalid client name %q: expected TYPE.ID, e.g. client.admin", cfg.Name)
		}
		rc, err = gorados.NewConnWithClusterAndUser("ceph", cfg.Name)
	case cfg.ID != "":
		rc, err = gorados.NewConnWithUser(cfg.ID)
	default:
		rc, err = gorados.NewConn()
	}
	if err != nil {
		return nil, wrap("create client", "", err)
	}
	return rc, nil
}

func configure(rc *gorados.Conn, cfg ConnConfig) error {
	if cfg.ConfPath != "" {
		if err := rc.ReadConfigFile(cfg.ConfPath); err != nil {
			return fmt.Errorf("read conf %s: %w", cfg.ConfPath, wrap("read conf", "", err))
		}
	} else if err := rc.ReadDefaultConfigFile(); err != nil {
		return fmt.Errorf("no ceph.conf found ($CEPH_CONF, /etc/ceph/ceph.conf, ~/.ceph/config, ./ceph.conf); give one with -c: %w",
			wrap("read conf", "", err))
	}
	if !cfg.IgnoreCephArgs {
		if err := rc.ParseDefaultConfigEnv(); err != nil {
			return fmt.Errorf("parse CEPH_ARGS: %w", wrap("parse env", "", err))
		}
	}
	set := func(k, v string) error {
		if err := rc.SetConfigOption(k, v); err != nil {
			return fmt.Errorf("set option %s=%q: %w", k, v, wrap("set option", "", err))
		}
		return nil
	}
	if cfg.Keyring != "" {
		if err := set("keyring", cfg.Keyring); err != nil {
			return err
		}
	}
	timeout := cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if err := set("client_mount_timeout", seconds(timeout)); err != nil {
		return err
	}
	if cfg.OpTimeout > 0 {
		for _, k := range []string{"rados_osd_op_timeout", "rados_mon_op_timeout"} {
			if err := set(k, seconds(cfg.OpTimeout)); err != nil {
				return err
			}
		}
	}
	for k, v := range cfg.Options {
		if err := set(k, v); err != nil {
			return err
		}
	}
	return quietClientLog(rc, set)
}

// Ceph's client keeps an in-memory log for crash dumps: at its default
// debug_client level 0/5 every libcephfs call and reply is formatted into
// it, though nothing is written out. For a copy of many small files that
// is a third of the client's CPU time (5,000 files: 23 CPU seconds with
// it, 16 without). A connection whose conf and CEPH_ARGS leave
// debug_client at that default gathers nothing more than it writes
// (0/0); any other setting is kept.
const (
	clientLogDefault = "0/5"
	clientLogQuiet   = "0/0"
)

func quietClientLog(rc *gorados.Conn, set func(k, v string) error) error {
	v, err := rc.GetConfigOption("debug_client")
	if err != nil {
		return fmt.Errorf("get option debug_client: %w", wrap("get option", "", err))
	}
	if v != clientLogDefault {
		return nil
	}
	return set("debug_client", clientLogQuiet)
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

func connectHint(cfg ConnConfig, errno syscall.Errno) string {
	switch errno {
	case syscall.ETIMEDOUT:
		t := cfg.ConnectTimeout
		if t <= 0 {
			t = 30 * time.Second
		}
		return fmt.Sprintf("no monitor answered within %s; check mon_host in the conf", t)
	case syscall.EACCES, syscall.EPERM:
		return "authentication failed; check the client name and its keyring"
	case syscall.ENOENT:
		return "keyring or key not found; check the keyring"
	}
	return ""
}

// OpenPool opens an I/O context on pool, in namespace ns ("" for the
// default namespace). A missing pool gives ENOENT naming the pool.
func (c *Conn) OpenPool(pool, ns string) (*Pool, error) { return c.OpenPoolAt(pool, ns, 0) }

// OpenPoolAt is OpenPool reading at snapshot snap (0: head): every read,
// stat, xattr and checksum through the pool, and every copy-from of its
// objects, sees the objects as they were in that snapshot
// (rados_ioctx_snap_set_read); writes through it fail (EROFS). snap is a
// pool snapshot's id (LookupSnap) or a self-managed one's, such as a
// CephFS snapshot's on its file system's data pools.
func (c *Conn) OpenPoolAt(pool, ns string, snap uint64) (*Pool, error) {
	c.life.RLock()
	defer c.life.RUnlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, &store.Error{Op: "open pool", Object: pool, Errno: syscall.ESHUTDOWN}
	}
	io, err := c.rc.OpenIOContext(pool)
	if err != nil {
		return nil, wrap("open pool", pool, err)
	}
	io.SetNamespace(ns)
	if snap != 0 {
		if err := io.SetReadSnap(gorados.SnapID(snap)); err != nil {
			io.Destroy()
			return nil, wrap("set read snap", pool, err)
		}
	}
	failWhenFull(io)
	p := &Pool{conn: c, io: io, name: pool, ns: ns, snap: snap}
	c.pools = append(c.pools, p)
	return p, nil
}

// sourcePool is a pool of c for reading copy-from sources in pool and ns
// at snapshot snap, opened on first use and kept for the connection's life.
func (c *Conn) sourcePool(pool, ns string, snap uint64) (*Pool, error) {
	key := store.Location{Pool: pool, Namespace: ns, Snap: snap}
	c.mu.Lock()
	p := c.sources[key]
	c.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p, err := c.OpenPoolAt(pool, ns, snap)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if have := c.sources[key]; have != nil {
		return have, nil // another goroutine opened it meanwhile; p is released at Close
	}
	if c.sources == nil {
		c.sources = map[store.Location]*Pool{}
	}
	c.sources[key] = p
	return p, nil
}

// Raw is the underlying go-ceph connection, for callers that need go-ceph
// directly (libradosstriper, monitor commands).
func (c *Conn) Raw() *gorados.Conn { return c.rc }

// enter holds p's connection for one synchronous call, failing with
// ESHUTDOWN once Close has begun; a nil error must be matched by leave.
// Calls must not nest: a Close waiting between them would deadlock.
func (p *Pool) enter(op, oid string) error {
	c := p.conn
	c.life.RLock()
	if c.closed {
		c.life.RUnlock()
		return &store.Error{Op: op, Object: p.Ref(oid), Errno: syscall.ESHUTDOWN}
	}
	return nil
}

func (c *Conn) leave() { c.life.RUnlock() }

// Close waits for every call still running and every copy and stat still
// in flight, releases the pools and shuts the client down. Calls and copies
// made after Close has begun fail with ESHUTDOWN; calls already running
// finish first (an operation stuck on the cluster holds Close up to the
// op timeout, ConnConfig.OpTimeout, or for ever without one).
func (c *Conn) Close() {
	c.life.Lock()
	if c.closed {
		c.life.Unlock()
		return
	}
	c.closed = true
	c.life.Unlock()

	c.mu.Lock()
	pending := make([]*Copy, 0, len(c.pending))
	for cp := range c.pending {
		pending = append(pending, cp)
	}
	c.mu.Unlock()

	for _, cp := range pending {
		_ = cp.Wait()
	}
	c.stats.Wait()
	for _, p := range c.pools {
		p.io.Destroy()
	}
	c.rc.Shutdown()
}

func (c *Conn) track(cp *Copy) {
	c.mu.Lock()
	c.pending[cp] = struct{}{}
	c.mu.Unlock()
}

func (c *Conn) untrack(cp *Copy) {
	c.mu.Lock()
	delete(c.pending, cp)
	c.mu.Unlock()
}
