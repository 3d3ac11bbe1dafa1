package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Auth is how rocefab proves who it is to a device.
type Auth string

// The ways of the inventory's `auth` field.
const (
	// AuthAgent signs with the keys of the ssh-agent at SSH_AUTH_SOCK.
	AuthAgent Auth = "agent"
	// AuthKey signs with a private key file. An encrypted key is used
	// through the agent when the agent holds it, else its passphrase is
	// asked on the terminal; a passphrase is never read from a file.
	AuthKey Auth = "key"
	// AuthPassword sends the password the caller read from the
	// environment variable the inventory names.
	AuthPassword Auth = "password"
)

// maxKeyFileBytes bounds a private key file: an RSA 16384-bit key in
// OpenSSH format is about 13 KiB.
const maxKeyFileBytes = 1 << 20

// Credentials are what one group of devices is logged in to with. They
// hold a secret (Password) that never leaves this package except towards
// the device: no error, log or String of this package carries it.
type Credentials struct {
	Username string
	Auth     Auth
	// KeyFile is the private key of AuthKey.
	KeyFile string
	// Password is the secret of AuthPassword.
	Password string
	// Passphrase asks for the passphrase of an encrypted KeyFile, on a
	// terminal; nil when there is none, and an encrypted key the agent
	// does not hold is then an error.
	Passphrase func(keyFile string) ([]byte, error)
	// AgentSocket is the ssh-agent's socket; empty means SSH_AUTH_SOCK.
	AgentSocket string
}

// String names the credentials without their secret.
func (c *Credentials) String() string {
	switch c.Auth {
	case AuthKey:
		return fmt.Sprintf("user %s, key %s", c.Username, c.KeyFile)
	case AuthPassword:
		return fmt.Sprintf("user %s, password", c.Username)
	}
	return fmt.Sprintf("user %s, ssh-agent", c.Username)
}

// GoString keeps %#v from printing the password either.
func (c *Credentials) GoString() string { return "ssh.Credentials{" + c.String() + "}" }

// authMethods returns the client's auth methods, prepared once per
// credentials (an encrypted key's passphrase is asked once, not once per
// device).
type authMethods struct {
	once    sync.Once
	methods []gossh.AuthMethod
	closers []io.Closer
	err     error
}

func (a *authMethods) get(c *Credentials) ([]gossh.AuthMethod, error) {
	a.once.Do(func() { a.methods, a.closers, a.err = prepare(c) })
	return a.methods, a.err
}

func (a *authMethods) close() {
	for _, c := range a.closers {
		c.Close()
	}
}

// agentSigners returns the agent's signers and the connection they use.
func agentSigners(sock string) ([]gossh.Signer, io.Closer, error) {
	if sock == "" {
		sock = os.Getenv("SSH_AUTH_SOCK")
	}
	if sock == "" {
		return nil, nil, errors.New("no ssh-agent: SSH_AUTH_SOCK is not set (start one with ssh-agent and load the key with ssh-add)")
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot reach the ssh-agent at SSH_AUTH_SOCK (%s): %w", sock, err)
	}
	signers, err := agent.NewClient(conn).Signers()
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("the ssh-agent at %s lists no keys: %w", sock, err)
	}
	return signers, conn, nil
}

func prepare(c *Credentials) ([]gossh.AuthMethod, []io.Closer, error) {
	switch c.Auth {
	case AuthPassword:
		if c.Password == "" {
			return nil, nil, errors.New("auth \"password\" with an empty password")
		}
		pw := c.Password
		return []gossh.AuthMethod{
			gossh.Password(pw),
			// Devices that take passwords only through keyboard-interactive
			// (many NOS's PAM setups) ask one question: the password.
			gossh.KeyboardInteractive(func(_, _ string, questions []string, _ []bool) ([]string, error) {
				answers := make([]string, len(questions))
				for i := range answers {
					answers[i] = pw
				}
				return answers, nil
			}),
		}, nil, nil
	case AuthKey:
		s, closer, err := keySigner(c)
		if err != nil {
			return nil, nil, err
		}
		var closers []io.Closer
		if closer != nil {
			closers = append(closers, closer)
		}
		return []gossh.AuthMethod{gossh.PublicKeys(s)}, closers, nil
	case AuthAgent, "":
		signers, conn, err := agentSigners(c.AgentSocket)
		if err != nil {
			return nil, nil, err
		}
		if len(signers) == 0 {
			conn.Close()
			return nil, nil, errors.New("the ssh-agent holds no key (load one with ssh-add)")
		}
		return []gossh.AuthMethod{gossh.PublicKeys(signers...)}, []io.Closer{conn}, nil
	}
	return nil, nil, fmt.Errorf("auth %q: allowed are agent, key, password", c.Auth)
}

// keySigner reads the key file. An encrypted key is signed with by the
// agent when the agent holds it (its public key, beside it in KEY.pub or
// in the file's unencrypted header, names it), else decrypted with the
// passphrase asked on the terminal.
func keySigner(c *Credentials) (gossh.Signer, io.Closer, error) {
	if c.KeyFile == "" {
		return nil, nil, errors.New("auth \"key\" needs keyFile")
	}
	b, err := readKey(c.KeyFile)
	if err != nil {
		return nil, nil, err
	}
	s, err := gossh.ParsePrivateKey(b)
	if err == nil {
		return s, nil, nil
	}
	var missing *gossh.PassphraseMissingError
	if !errors.As(err, &missing) {
		return nil, nil, fmt.Errorf("key file %s: %w", c.KeyFile, err)
	}
	pub := missing.PublicKey
	if pub == nil {
		if pb, err := readKey(c.KeyFile + ".pub"); err == nil {
			pub, _, _, _, _ = gossh.ParseAuthorizedKey(pb)
		}
	}
	var agentErr error
	if pub != nil {
		signers, conn, err := agentSigners(c.AgentSocket)
		if err == nil {
			for _, s := range signers {
				if bytes.Equal(s.PublicKey().Marshal(), pub.Marshal()) {
					return s, conn, nil
				}
			}
			conn.Close()
			err = fmt.Errorf("the ssh-agent does not hold it (%s)", gossh.FingerprintSHA256(pub))
		}
		agentErr = err
	}
	if c.Passphrase == nil {
		why := "there is no terminal to ask its passphrase on"
		if agentErr != nil {
			why = agentErr.Error() + ", and " + why
		}
		return nil, nil, fmt.Errorf("key file %s is encrypted: %s; load it into the agent with ssh-add", c.KeyFile, why)
	}
	pass, err := c.Passphrase(c.KeyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("key file %s is encrypted and its passphrase could not be read: %w", c.KeyFile, err)
	}
	defer clear(pass)
	s, err = gossh.ParsePrivateKeyWithPassphrase(b, pass)
	if err != nil {
		// x/crypto's error says what failed, never the passphrase.
		return nil, nil, fmt.Errorf("key file %s: %w", c.KeyFile, err)
	}
	return s, nil, nil
}

func readKey(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxKeyFileBytes {
		return nil, fmt.Errorf("key file %s is larger than %d bytes: no private key is", p, maxKeyFileBytes)
	}
	return b, nil
}

// HostKeys checks the keys devices present.
type HostKeys struct {
	// File is the known_hosts file; empty means ~/.ssh/known_hosts.
	File string
	// Insecure accepts any key: for lab devices only, and the caller
	// warns loudly.
	Insecure bool

	once     sync.Once
	callback gossh.HostKeyCallback
	path     string
	err      error
}

// DefaultKnownHosts is the user's known_hosts file.
func DefaultKnownHosts() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".ssh", "known_hosts")
	}
	return filepath.Join(home, ".ssh", "known_hosts")
}

func (h *HostKeys) load() (gossh.HostKeyCallback, error) {
	h.once.Do(func() {
		h.path = h.File
		if h.path == "" {
			h.path = DefaultKnownHosts()
		}
		h.callback, h.err = knownhosts.New(h.path)
		if h.err != nil {
			h.err = fmt.Errorf("known_hosts %s: %w (host keys are checked against it; give knownHosts in the inventory)", h.path, h.err)
		}
	})
	return h.callback, h.err
}

// HostKeyError is a device whose host key is not the one known_hosts has
// for it, or that known_hosts does not know.
type HostKeyError struct {
	Host, Address string
	// KnownHosts is the file that was checked.
	KnownHosts string
	// Fingerprint is the SHA-256 fingerprint of the key the device
	// presented, as ssh-keygen -l prints it.
	Fingerprint string
	KeyType     string
	// Changed is set when known_hosts has another key for the host (line
	// Line); unset when it has none.
	Changed bool
	Line    int
}

func (e *HostKeyError) Error() string {
	if e.Changed {
		return fmt.Sprintf("HOST KEY CHANGED for %s (%s): it presented the %s key %s, which is not the key of %s line %d; "+
			"someone may be intercepting the connection, or the device was reinstalled: nothing was sent to it; check the key with its operator and fix known_hosts",
			e.Host, e.Address, e.KeyType, e.Fingerprint, e.KnownHosts, e.Line)
	}
	return fmt.Sprintf("unknown host key for %s (%s): it presented the %s key %s, which %s does not have; nothing was sent to it; "+
		"check the fingerprint on the device's console and add it to known_hosts (ssh-keyscan prints the line)",
		e.Host, e.Address, e.KeyType, e.Fingerprint, e.KnownHosts)
}

// callbackFor returns the host-key check of one device and the host key
// algorithms to ask it for: those known_hosts has for it, so that a device
// with several keys is checked against the one known (x/crypto's
// knownhosts does not pick it by itself).
func (h *HostKeys) callbackFor(host string, addr string) (gossh.HostKeyCallback, []string, error) {
	if h.Insecure {
		return gossh.InsecureIgnoreHostKey(), nil, nil //nolint:gosec // the caller's loudly warned lab mode
	}
	cb, err := h.load()
	if err != nil {
		return nil, nil, err
	}
	algos := knownAlgorithms(cb, addr)
	check := func(hostname string, remote net.Addr, key gossh.PublicKey) error {
		err := cb(hostname, remote, key)
		var ke *knownhosts.KeyError
		if errors.As(err, &ke) {
			e := &HostKeyError{Host: host, Address: addr, KnownHosts: h.path, Fingerprint: gossh.FingerprintSHA256(key), KeyType: key.Type()}
			if len(ke.Want) > 0 {
				e.Changed, e.Line = true, ke.Want[0].Line
			}
			return e
		}
		var re *knownhosts.RevokedError
		if errors.As(err, &re) {
			return fmt.Errorf("host key of %s (%s) %s is revoked in %s line %d: nothing was sent to it",
				host, addr, gossh.FingerprintSHA256(key), re.Revoked.Filename, re.Revoked.Line)
		}
		return err
	}
	return check, algos, nil
}

// knownAlgorithms asks the known_hosts callback about addr with a key no
// device has: the KeyError it returns lists the keys known for addr, and
// their types are the algorithms to negotiate.
func knownAlgorithms(cb gossh.HostKeyCallback, addr string) []string {
	probe, err := probeKey()
	if err != nil {
		return nil
	}
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		tcp = &net.TCPAddr{}
	}
	var ke *knownhosts.KeyError
	if !errors.As(cb(addr, tcp, probe), &ke) {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range ke.Want {
		for _, a := range algorithmsOf(k.Key.Type()) {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// algorithmsOf maps a key type to the signature algorithms it verifies
// (an RSA key: the SHA-2 ones first, RFC 8332).
func algorithmsOf(keyType string) []string {
	if keyType == gossh.KeyAlgoRSA {
		return []string{gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256, gossh.KeyAlgoRSA}
	}
	return []string{keyType}
}

var (
	probeOnce sync.Once
	probe     gossh.PublicKey
	probeErr  error
)

// probeKey is a fresh ed25519 public key nobody's known_hosts holds.
func probeKey() (gossh.PublicKey, error) {
	probeOnce.Do(func() {
		var seed [32]byte
		if _, probeErr = rand.Read(seed[:]); probeErr != nil {
			return
		}
		// An ed25519 public key is any 32 bytes for this purpose: it is
		// only compared, never verified against.
		h := sha256.Sum256(seed[:])
		wire := append(lenPrefixed([]byte(gossh.KeyAlgoED25519)), lenPrefixed(h[:])...)
		probe, probeErr = gossh.ParsePublicKey(wire)
	})
	return probe, probeErr
}

func lenPrefixed(b []byte) []byte {
	n := len(b)
	return append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, b...)
}

// dial connects and logs in to addr (host:port), checking its host key.
func dial(ctx context.Context, host, addr string, creds *Credentials, methods *authMethods, keys *HostKeys) (*gossh.Client, error) {
	auth, err := methods.get(creds)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", host, creds, err)
	}
	cb, algos, err := keys.callbackFor(host, addr)
	if err != nil {
		return nil, err
	}
	cfg := &gossh.ClientConfig{
		User:              creds.Username,
		Auth:              auth,
		HostKeyCallback:   cb,
		HostKeyAlgorithms: algos,
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot connect to %s: %w", host, addr, err)
	}
	// The handshake has no context of its own: closing the connection is
	// what stops it when ctx ends.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	c, chans, reqs, err := gossh.NewClientConn(conn, addr, cfg)
	stop()
	if err != nil {
		conn.Close()
		var hk *HostKeyError
		if errors.As(err, &hk) {
			return nil, hk
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: SSH handshake with %s: %w", host, addr, ctx.Err())
		}
		return nil, fmt.Errorf("%s: SSH login to %s as %s: %s", host, addr, creds, sanitize(err.Error(), creds))
	}
	return gossh.NewClient(c, chans, reqs), nil
}

// sanitize removes the password from a message, should any library ever
// echo it back.
func sanitize(msg string, creds *Credentials) string {
	if creds.Password != "" {
		msg = strings.ReplaceAll(msg, creds.Password, "[password]")
		msg = strings.ReplaceAll(msg, base64.StdEncoding.EncodeToString([]byte(creds.Password)), "[password]")
	}
	return msg
}

// Dialer returns a function that logs in to a host over SSH as the target
// logs in to switches (credentials, known_hosts checking, the same
// errors), for the transports that run commands rather than a CLI (the
// host target), and a function that closes the agent connections it
// keeps. Credentials are prepared once each, so an encrypted key's
// passphrase is asked once for all hosts.
func Dialer() (dialHost func(ctx context.Context, host, addr string, creds *Credentials, keys *HostKeys) (*gossh.Client, error), closeAll func()) {
	var mu sync.Mutex
	methods := map[*Credentials]*authMethods{}
	dialHost = func(ctx context.Context, host, addr string, creds *Credentials, keys *HostKeys) (*gossh.Client, error) {
		if creds == nil {
			return nil, fmt.Errorf("%s: no credentials", host)
		}
		if keys == nil {
			keys = &HostKeys{}
		}
		mu.Lock()
		m := methods[creds]
		if m == nil {
			m = &authMethods{}
			methods[creds] = m
		}
		mu.Unlock()
		return dial(ctx, host, addr, creds, m, keys)
	}
	closeAll = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range methods {
			m.close()
		}
		methods = map[*Credentials]*authMethods{}
	}
	return dialHost, closeAll
}
