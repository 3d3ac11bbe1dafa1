package routing

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/dir"
	"github.com/rocefab/rocefab/targets/gnmi"
	"github.com/rocefab/rocefab/targets/host"
	"github.com/rocefab/rocefab/targets/ssh"
)

// The transports of an inventory (schema #Transport) that plan and apply
// speak.
const (
	transportGNMI = "gnmi"
	transportDir  = "dir"
	transportSSH  = "ssh"
)

// IgnoreHostKeysFlag is the flag of the lab switch that logs in to SSH
// devices without checking their host keys (Options.IgnoreHostKeys), as
// messages name it.
const IgnoreHostKeysFlag = "insecure-ignore-host-keys"

// sshPort is where a device's SSH server listens unless the inventory
// says otherwise.
const sshPort = 22

// gnmiRPCTimeout bounds each gNMI RPC; apply's --timeout bounds each
// device's whole step besides.
const gnmiRPCTimeout = 30 * time.Second

// maxCAFileBytes bounds a CA file: a bundle of every public root is a
// few hundred KiB.
const maxCAFileBytes = 16 << 20

// routed is the target of a fabric reached through an inventory: each
// device goes to the target of its transport. Devices the inventory
// reaches in a way rocefab does not speak have no route; their platform
// (routed.platform) says why, so plan reports them unsupported before
// anything reads them.
type routed struct {
	route       map[string]targets.Target // by device name
	unsupported map[string]string         // by device name: why
	transport   map[string]string         // by device name
	gnmi        []*gnmi.Target
	ssh         *ssh.Target
	host        *host.Target
	closeHosts  func()
	dir         *dir.Target
	lockPath    string
	models      models
	// diffs are the devices' own diffs of their pushes (diffs.go).
	diffs deviceDiffs
}

var (
	_ targets.Target        = (*routed)(nil)
	_ targets.Confirmer     = (*routed)(nil)
	_ targets.RollBacker    = (*routed)(nil)
	_ targets.Locker        = (*routed)(nil)
	_ targets.PendingReader = (*routed)(nil)
	_ targets.Noter         = (*routed)(nil)
	_ targets.Differ        = (*routed)(nil)
)

// DeviceDiffs are what the devices reached over SSH printed as their
// diffs of their pushes.
func (r *routed) DeviceDiffs() map[string]string { return r.diffs.all() }

// Notes are the gNMI targets' notes, sorted.
func (r *routed) Notes() []string {
	var out []string
	for _, t := range r.gnmi {
		out = append(out, t.Notes()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (r *routed) to(d *ir.Device) (targets.Target, error) {
	t, ok := r.route[d.Name]
	if !ok {
		why := r.unsupported[d.Name]
		if why == "" {
			why = "the inventory gives it no transport"
		}
		return nil, fmt.Errorf("%s: %s", d.Name, why)
	}
	return t, nil
}

// platform is the plan's and the rollout's targets.Platforms: the
// platform of the device's transport, or why it has none.
func (r *routed) platform(d *ir.Device) (renderers.Platform, error) {
	if why, ok := r.unsupported[d.Name]; ok {
		return nil, errors.New(why)
	}
	return r.models.forTransport(r.transport[d.Name])(d)
}

// Read reads d through the target of its transport.
func (r *routed) Read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error) {
	t, err := r.to(d)
	if err != nil {
		return nil, err
	}
	return t.Read(ctx, d)
}

// Push pushes to d through the target of its transport.
func (r *routed) Push(ctx context.Context, d *ir.Device, rem renderers.Remediation) error {
	t, err := r.to(d)
	if err != nil {
		return err
	}
	return t.Push(ctx, d, rem)
}

// PushConfirmed pushes a commit that d's target takes back unless it is
// confirmed in time. Every routed target (gNMI, SSH, directory) has one.
func (r *routed) PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	c, err := r.confirmer(d)
	if err != nil {
		return err
	}
	return c.PushConfirmed(ctx, d, rem, timeout)
}

// Confirm confirms d's pending commit.
func (r *routed) Confirm(ctx context.Context, d *ir.Device) error {
	c, err := r.confirmer(d)
	if err != nil {
		return err
	}
	return c.Confirm(ctx, d)
}

// confirmer is d's target, which takes commits that roll back by
// themselves unless confirmed.
func (r *routed) confirmer(d *ir.Device) (targets.Confirmer, error) {
	t, err := r.to(d)
	return capable[targets.Confirmer](t, err, fmt.Errorf("%s: its target has no commit-confirm", d.Name))
}

// Rollback takes back d's pending push.
func (r *routed) Rollback(ctx context.Context, d *ir.Device) error {
	t, err := r.to(d)
	rb, err := capable[targets.RollBacker](t, err, fmt.Errorf("%s: its target cannot roll back", d.Name))
	if err != nil {
		return err
	}
	return rb.Rollback(ctx, d)
}

// capable returns v, a device's target or platform, as the T an operation
// needs: err where v could not be had, lacks where v is no T.
func capable[T any](v any, err error, lacks error) (T, error) {
	var none T
	if err != nil {
		return none, err
	}
	c, ok := v.(T)
	if !ok {
		return none, lacks
	}
	return c, nil
}

// Pending returns d's unconfirmed commit where its transport can tell
// (the directory target's backups); nil where it has none or cannot tell
// (a device not routed is never pushed to).
func (r *routed) Pending(ctx context.Context, d *ir.Device) (*targets.PendingCommit, error) {
	t, err := r.to(d)
	if err != nil {
		return nil, nil
	}
	if pr, ok := t.(targets.PendingReader); ok {
		return pr.Pending(ctx, d)
	}
	return nil, nil
}

// Lock takes the fabric lock file beside the intent (the gNMI target
// takes no device locks: gNMI has none), and the directory target's own
// lock when some devices are reached through it, so that an apply without
// --inventory is refused on them too.
func (r *routed) Lock(ctx context.Context, devices []*ir.Device) (func() error, error) {
	release, err := targets.LockFile(r.lockPath)
	if err != nil {
		return nil, err
	}
	var viaDir []*ir.Device
	for _, d := range devices {
		if r.dir != nil && r.route[d.Name] == targets.Target(r.dir) {
			viaDir = append(viaDir, d)
		}
	}
	if len(viaDir) == 0 {
		return release, nil
	}
	releaseDir, err := r.dir.Lock(ctx, viaDir)
	if err != nil {
		return nil, errors.Join(err, release())
	}
	return func() error { return errors.Join(releaseDir(), release()) }, nil
}

// Close closes the gNMI connections and the SSH target's agent
// connections.
func (r *routed) Close() error {
	var errs []error
	for _, t := range r.gnmi {
		errs = append(errs, t.Close())
	}
	if r.ssh != nil {
		errs = append(errs, r.ssh.Close())
	}
	if r.closeHosts != nil {
		r.closeHosts()
	}
	return errors.Join(errs...)
}

// gnmiKey is what one gNMI target is made for: devices that share their
// credentials and their TLS trust share a target.
type gnmiKey struct {
	username, passwordEnv, caFile string
}

// reachInventory makes the target of the fabric's devices from the
// inventory file: gNMI for the devices whose transport is gnmi, the
// directory running/ beside the intent for "dir", SSH for "ssh", and no
// route (an unsupported device, with why) for the transports rocefab does
// not speak. Plaintext sends gNMI without TLS, and IgnoreHostKeys logs in
// over SSH without checking host keys, which Warn is told loudly; the
// warnings count the devices of Reached (nil: all of Devices), those the
// command goes to. The password is read from the environment variable the
// inventory names and goes nowhere but to the devices (gNMI metadata, SSH
// login): no error or message here carries it.
func reachInventory(opt Options, m models) (*routed, diag.List, error) {
	file, plaintext, ignoreHostKeys, lockPath, warn := opt.Inventory, opt.Plaintext, opt.IgnoreHostKeys, opt.LockPath, opt.Warn
	devs, reached := opt.Devices, opt.Reached
	load := registered().loadInventory
	if load == nil {
		return nil, nil, errors.New("internal error: no inventory loader is registered")
	}
	inv, ds, err := load(file)
	if err != nil || len(ds) > 0 {
		return nil, ds, err
	}
	if inv == nil || inv.For == nil {
		return nil, nil, fmt.Errorf("internal error: inventory %s loaded as nothing", file)
	}
	r := &routed{route: map[string]targets.Target{}, unsupported: map[string]string{}, transport: map[string]string{}, lockPath: lockPath, models: m}
	byKey := map[gnmiKey]*gnmi.Target{}
	addrs := map[string]string{}
	// The warnings count the devices this command reaches (--only), of
	// all it routes (the host runtime is rendered from every device).
	isReached := func(string) bool { return true }
	if reached != nil {
		names := map[string]bool{}
		for _, d := range reached {
			names[d.Name] = true
		}
		isReached = func(n string) bool { return names[n] }
	}
	viaGNMI := 0
	viaSSH := &sshRoutes{inv: inv, file: file, endpoints: map[string]ssh.Endpoint{}, creds: map[sshKey]*ssh.Credentials{},
		hostKeys: map[string]*ssh.HostKeys{}, ignoreHostKeys: ignoreHostKeys, warn: warn, passphrase: opt.Passphrase, diffs: &r.diffs, journal: pushJournal(lockPath)}
	for _, d := range devs {
		acc, host := inv.For(d.Name, d.Platform)
		r.transport[d.Name] = acc.Transport
		switch acc.Transport {
		case transportDir:
			if r.dir == nil {
				r.dir = dir.New(filepath.Join(opt.Dir, "running"), m.appliers)
			}
			r.route[d.Name] = r.dir
			continue
		case transportSSH:
			why, err := viaSSH.add(d, acc, host)
			if err != nil {
				return nil, nil, err
			}
			if why != "" {
				r.unsupported[d.Name] = why
			}
			continue
		case transportGNMI:
		case "":
			r.unsupported[d.Name] = fmt.Sprintf("the inventory %s gives it no transport (set transport in defaults, platforms.%s or hosts)", file, d.Platform)
			continue
		default:
			r.unsupported[d.Name] = fmt.Sprintf("the inventory %s reaches it over %s, which rocefab does not speak yet: plan and apply reach devices over gnmi, ssh (%s), or through running/ beside the intent (transport \"dir\")", file, acc.Transport, strings.Join(ssh.Platforms(), ", "))
			continue
		}
		if d.Switch == nil {
			r.unsupported[d.Name] = fmt.Sprintf("the inventory %s reaches this %s %s over gnmi, and rocefab models only switches' OpenConfig trees", file, d.Platform, d.Role)
			continue
		}
		if acc.Insecure {
			return nil, nil, fmt.Errorf("inventory %s: insecure: true for %s (platform %s): rocefab never skips checking a gNMI device's certificate; "+
				"for a lab device without TLS, give --insecure-plaintext", file, d.Name, d.Platform)
		}
		addr, err := GNMIAddress(host, acc.Port)
		if err != nil {
			return nil, nil, fmt.Errorf("inventory %s: %s (platform %s): %w", file, d.Name, d.Platform, err)
		}
		addrs[d.Name] = addr
		key := gnmiKey{username: acc.Username, caFile: acc.CAFile}
		switch acc.Auth {
		case "password":
			if inv.PasswordEnv == "" {
				return nil, nil, fmt.Errorf("inventory %s: %s (platform %s) has auth \"password\" and the inventory names no passwordEnv to read it from", file, d.Name, d.Platform)
			}
			key.passwordEnv = inv.PasswordEnv
		case "", "agent":
			// gNMI has no agent: the device is asked without credentials,
			// and says so if it wants them.
		default:
			return nil, nil, fmt.Errorf("inventory %s: %s (platform %s): auth %q: over gNMI rocefab sends a username and a password (auth \"password\") or nothing; allowed are password, agent", file, d.Name, d.Platform, acc.Auth)
		}
		t, ok := byKey[key]
		if !ok {
			t, err = newGNMITarget(key, file, plaintext, addrs, pushJournal(lockPath))
			if err != nil {
				return nil, nil, err
			}
			byKey[key] = t
			r.gnmi = append(r.gnmi, t)
		}
		r.route[d.Name] = t
		if isReached(d.Name) {
			viaGNMI++
		}
	}
	if len(viaSSH.endpoints) > 0 {
		t, err := viaSSH.target()
		if err != nil {
			return nil, nil, err
		}
		r.ssh = t
		for name := range viaSSH.endpoints {
			r.route[name] = t
		}
	}
	if len(viaSSH.hosts) > 0 {
		t, closeHosts, err := viaSSH.hostTarget()
		if err != nil {
			return nil, nil, err
		}
		r.host, r.closeHosts = t, closeHosts
		for name := range viaSSH.hosts {
			r.route[name] = t
		}
	}
	overSSH := 0
	for name := range viaSSH.endpoints {
		if isReached(name) {
			overSSH++
		}
	}
	for name, h := range viaSSH.hosts {
		if !h.local && isReached(name) {
			overSSH++
		}
	}
	if ignoreHostKeys && overSSH > 0 {
		fmt.Fprintf(warn, "WARNING: --%s: %s reached over SSH WITHOUT checking their host keys: anyone on the path can pose as them "+
			"and receive the configuration and the credentials (a password in full). Use this on lab devices only.\n",
			IgnoreHostKeysFlag, diag.Plural(overSSH, "device is", "devices are"))
	}
	if plaintext && viaGNMI > 0 {
		fmt.Fprintf(warn, "WARNING: --insecure-plaintext: %s reached over gNMI WITHOUT TLS: their configuration, "+
			"the username and the password cross the network unencrypted, and nothing proves the device is the one it claims to be. "+
			"Use this on lab devices only.\n", diag.Plural(viaGNMI, "device is", "devices are"))
	}
	return r, nil, nil
}

// pushJournal is the journal of pushes waiting for their confirmation,
// beside the fabric lock: the next plan and apply of the fabric read it
// (nil without a lock, as in tests that route no fabric).
func pushJournal(lockPath string) *targets.Journal {
	if lockPath == "" {
		return nil
	}
	return targets.NewJournal(filepath.Join(filepath.Dir(lockPath), ".rocefab-pending-pushes"))
}

// GNMIAddress is where a device's gNMI server listens: the inventory's
// address host when it carries a port, else host and the access's port.
// gNMI has no port every device listens on, so one of them must say it.
func GNMIAddress(host string, port int) (string, error) {
	if h, p, err := net.SplitHostPort(host); err == nil && h != "" && p != "" {
		return host, nil
	}
	if port == 0 {
		return "", fmt.Errorf("address %q has no port, and the inventory gives it none: set port in its platform's access (platforms.<platform>.port) or in defaults, or an address \"host:port\"", host)
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// newGNMITarget makes the gNMI target of the devices that share key, at
// the addresses addrs gives (filled in as devices are routed).
func newGNMITarget(key gnmiKey, invFile string, plaintext bool, addrs map[string]string, journal *targets.Journal) (*gnmi.Target, error) {
	oc, _ := OpenConfig()
	opts := gnmi.Options{
		Artifact: oc.Running,
		Journal:  journal,
		Address: func(d *ir.Device) (string, error) {
			a, ok := addrs[d.Name]
			if !ok {
				return "", fmt.Errorf("%s: the inventory gives it no gNMI address", d.Name)
			}
			return a, nil
		},
		Plaintext: plaintext,
		Username:  key.username,
		Timeout:   gnmiRPCTimeout,
	}
	if key.passwordEnv != "" {
		pw, ok := os.LookupEnv(key.passwordEnv)
		if !ok || pw == "" {
			return nil, fmt.Errorf("inventory %s: auth \"password\" reads the password from the environment variable %s, which is not set or empty", invFile, key.passwordEnv)
		}
		opts.Password = pw
	}
	if !plaintext {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if key.caFile != "" {
			pool, err := readCAFile(invFile, key.caFile)
			if err != nil {
				return nil, err
			}
			cfg.RootCAs = pool
		}
		opts.TLS = cfg
	}
	return gnmi.New(opts)
}

// readCAFile reads the PEM certificates of caFile, a path relative to the
// inventory's directory.
func readCAFile(invFile, caFile string) (*x509.CertPool, error) {
	p := caFile
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(invFile), p)
	}
	b, err := readBounded(p, maxCAFileBytes)
	if err != nil {
		return nil, fmt.Errorf("inventory %s: caFile %q: %w", invFile, caFile, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("inventory %s: caFile %q (%s) holds no PEM certificate", invFile, caFile, p)
	}
	return pool, nil
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, limit)
	}
	return b, nil
}

// inventoryName is how a plan names the target of an inventory: the
// file relative to the intent's directory, and plaintext when it was.
func inventoryName(intentDir, file string, plaintext bool) string {
	name := filepath.ToSlash(file)
	if rel, err := RelTo(intentDir, file); err == nil {
		name = rel
	}
	s := "inventory " + name
	if plaintext {
		s += " (gNMI without TLS)"
	}
	return s
}

// sshKey is what one set of SSH credentials is made for: devices that
// log in alike share them, and an encrypted key's passphrase is asked
// once for all of them.
type sshKey struct {
	username, auth, keyFile, passwordEnv string
}

// sshRoutes collects the devices an inventory reaches over SSH.
type sshRoutes struct {
	inv            *Inventory
	file           string
	endpoints      map[string]ssh.Endpoint
	creds          map[sshKey]*ssh.Credentials
	hostKeys       map[string]*ssh.HostKeys // by known_hosts file
	ignoreHostKeys bool
	warn           io.Writer
	passphrase     func(keyFile string) ([]byte, error)
	// hosts are the servers reached over SSH or locally, hostSudo
	// whether their commands run behind sudo (host.go).
	hosts    map[string]hostEndpoint
	hostSudo bool
	// diffs keeps what the switches print as their diff of a push.
	diffs *deviceDiffs
	// journal records the pushes of switches that cannot show theirs.
	journal *targets.Journal
}

// add routes d over SSH, or says why rocefab cannot reach it that way (an
// unsupported device); an error is an inventory that cannot work.
func (s *sshRoutes) add(d *ir.Device, acc Access, host string) (string, error) {
	where := fmt.Sprintf("inventory %s: %s (platform %s)", s.file, d.Name, d.Platform)
	if d.Switch == nil && host == localAddress {
		s.addHost(d, acc.Sudo, hostEndpoint{local: true})
		return "", nil
	}
	if d.Switch != nil && !ssh.Supports(d.Platform) {
		return fmt.Sprintf("the inventory %s reaches it over ssh, which rocefab does not speak to %s yet: over ssh it speaks to %s; reach %s over gnmi, or through running/ beside the intent (transport \"dir\")", s.file, d.Platform, strings.Join(ssh.Platforms(), ", "), d.Platform), nil
	}
	if acc.Insecure {
		return "", fmt.Errorf("%s: insecure: true: rocefab never skips checking a device's host key because a file says so; for lab devices, give --%s", where, IgnoreHostKeysFlag)
	}
	if acc.Username == "" {
		return "", fmt.Errorf("%s: no username: set username in its platform's access (platforms.%s.username) or in defaults", where, d.Platform)
	}
	addr, err := sshAddress(host, acc.Port)
	if err != nil {
		return "", fmt.Errorf("%s: %w", where, err)
	}
	key := sshKey{username: acc.Username, auth: acc.Auth}
	switch acc.Auth {
	case "", "agent":
		key.auth = string(ssh.AuthAgent)
	case "key":
		if acc.KeyFile == "" {
			return "", fmt.Errorf("%s: auth \"key\" and no keyFile: set keyFile, the private key's path (relative to the inventory's directory, or ~/...)", where)
		}
		key.keyFile = s.path(acc.KeyFile)
	case "password":
		if s.inv.PasswordEnv == "" {
			return "", fmt.Errorf("%s has auth \"password\" and the inventory names no passwordEnv to read it from", where)
		}
		key.passwordEnv = s.inv.PasswordEnv
	default:
		return "", fmt.Errorf("%s: auth %q: allowed are agent, key, password", where, acc.Auth)
	}
	creds, ok := s.creds[key]
	if !ok {
		creds = &ssh.Credentials{Username: key.username, Auth: ssh.Auth(key.auth), KeyFile: key.keyFile, Passphrase: s.passphrase}
		if key.passwordEnv != "" {
			pw, ok := os.LookupEnv(key.passwordEnv)
			if !ok || pw == "" {
				return "", fmt.Errorf("inventory %s: auth \"password\" reads the password from the environment variable %s, which is not set or empty", s.file, key.passwordEnv)
			}
			creds.Password = pw
		}
		s.creds[key] = creds
	}
	kh := ssh.DefaultKnownHosts()
	if acc.KnownHosts != "" {
		kh = s.path(acc.KnownHosts)
	}
	hk, ok := s.hostKeys[kh]
	if !ok {
		hk = &ssh.HostKeys{File: kh, Insecure: s.ignoreHostKeys}
		s.hostKeys[kh] = hk
	}
	if d.Switch == nil {
		s.addHost(d, acc.Sudo, hostEndpoint{ssh: ssh.Endpoint{Address: addr, Credentials: creds, HostKeys: hk}})
		return "", nil
	}
	desc, _ := Lookup(d.Platform)
	s.endpoints[d.Name] = ssh.Endpoint{Address: addr, Credentials: creds, HostKeys: hk, Artifact: desc.Running}
	return "", nil
}

// path resolves a file the inventory names: ~/ is the home directory, a
// relative path is relative to the inventory's directory.
func (s *sshRoutes) path(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(s.file), p)
}

// target makes the SSH target of the routed devices. Its warnings (a
// confirmed change a switch could not save) go to the warning writer.
func (s *sshRoutes) target() (*ssh.Target, error) {
	var mu sync.Mutex
	return ssh.New(ssh.Options{
		Journal: s.journal,
		Diff:    s.diffs.add,
		Warn: func(device, msg string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(s.warn, "WARNING: %s: %s\n", device, msg)
		},
		Endpoint: func(d *ir.Device) (ssh.Endpoint, error) {
			ep, ok := s.endpoints[d.Name]
			if !ok {
				return ssh.Endpoint{}, fmt.Errorf("%s: the inventory gives it no SSH address", d.Name)
			}
			return ep, nil
		},
	})
}

// sshAddress is where a device's SSH server listens: the inventory's
// address with its port, else with the access's port, else port 22.
func sshAddress(host string, port int) (string, error) {
	if h, p, err := net.SplitHostPort(host); err == nil && h != "" && p != "" {
		return host, nil
	}
	if host == "" {
		return "", errors.New("no address")
	}
	if port == 0 {
		port = sshPort
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}
