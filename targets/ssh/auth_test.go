package ssh_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/ssh"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// TestHostKeys: a device known_hosts does not know, or knows with another
// key, is not logged in to, and the error names the device, its address,
// the fingerprint it presented and the file; the lab mode logs in anyway.
func TestHostKeys(t *testing.T) {
	t.Parallel()
	w := newWorld(t, eosLeaves(t, 1))
	d := w.devs[0]
	srv := w.srv[d.Name]
	ctx := context.Background()
	fp := gossh.FingerprintSHA256(srv.HostKey)

	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := w.newTarget(t, &ssh.HostKeys{File: empty}).Read(ctx, d)
	var hk *ssh.HostKeyError
	if !errors.As(err, &hk) || hk.Changed {
		t.Fatalf("unknown host: %v", err)
	}
	for _, want := range []string{d.Name, srv.Addr, fp, empty, "unknown host key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("unknown host: the error does not say %q: %v", want, err)
		}
	}

	other, err := sshtest.NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(changed, []byte("# lab\n"+knownHostsLine(srv.Addr, other.PublicKey())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = w.newTarget(t, &ssh.HostKeys{File: changed}).Read(ctx, d)
	if !errors.As(err, &hk) || !hk.Changed || hk.Line != 2 {
		t.Fatalf("changed host key: %v", err)
	}
	for _, want := range []string{"HOST KEY CHANGED", d.Name, fp, changed + " line 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("changed host key: the error does not say %q: %v", want, err)
		}
	}
	if n := srv.Logins(); n != 0 {
		t.Errorf("%d logins to a device whose host key was refused", n)
	}

	if _, err := w.newTarget(t, &ssh.HostKeys{File: changed, Insecure: true}).Read(ctx, d); err != nil {
		t.Errorf("insecure host keys: %v", err)
	}
	if _, err := w.newTarget(t, &ssh.HostKeys{File: filepath.Join(t.TempDir(), "none")}).Read(ctx, d); err == nil || !strings.Contains(err.Error(), "known_hosts") {
		t.Errorf("a missing known_hosts file: %v", err)
	}
}

// keyWorld is one emulated device that takes a public key.
func keyWorld(t *testing.T, pub gossh.PublicKey) (*world, *ir.Device) {
	t.Helper()
	w := newWorld(t, eosLeaves(t, 1))
	d := w.devs[0]
	hk, err := sshtest.NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	s, err := sshtest.Serve(w.eos[d.Name], hk, sshtest.Credentials{User: "netops", Authorized: []gossh.PublicKey{pub}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w.srv[d.Name] = s
	if err := os.WriteFile(w.knownHosts, []byte(s.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return w, d
}

// startAgent serves an ssh-agent holding keys on a socket.
func startAgent(t *testing.T, keys ...any) string {
	t.Helper()
	kr := agent.NewKeyring()
	for _, k := range keys {
		if err := kr.Add(agent.AddedKey{PrivateKey: k}); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = agent.ServeAgent(kr, c)
			}()
		}
	}()
	return sock
}

// TestAuth: the agent's keys, an unencrypted key file, an encrypted one
// through the agent or its passphrase asked once, and a password each log
// in; an encrypted key without agent or terminal, and a wrong password,
// fail with errors that carry no secret.
func TestAuth(t *testing.T) {
	t.Parallel()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	const passphrase = "pass-Phrase-Never-Shown-91"
	dir := t.TempDir()
	plain := filepath.Join(dir, "id_plain")
	blk, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	enc := filepath.Join(dir, "id_enc")
	encryptKey(t, priv, enc, passphrase)
	withKey := startAgent(t, priv)
	empty := startAgent(t)
	asked := 0
	prompt := func(string) ([]byte, error) { asked++; return []byte(passphrase), nil }

	for _, c := range []struct {
		name    string
		creds   *ssh.Credentials
		wantErr string
	}{
		{"agent", &ssh.Credentials{Username: "netops", Auth: ssh.AuthAgent, AgentSocket: withKey}, ""},
		{"key file", &ssh.Credentials{Username: "netops", Auth: ssh.AuthKey, KeyFile: plain}, ""},
		{"encrypted key in the agent", &ssh.Credentials{Username: "netops", Auth: ssh.AuthKey, KeyFile: enc, AgentSocket: withKey}, ""},
		{"encrypted key, passphrase asked", &ssh.Credentials{Username: "netops", Auth: ssh.AuthKey, KeyFile: enc, AgentSocket: empty, Passphrase: prompt}, ""},
		{"encrypted key, no terminal", &ssh.Credentials{Username: "netops", Auth: ssh.AuthKey, KeyFile: enc, AgentSocket: empty}, "is encrypted"},
		{"empty agent", &ssh.Credentials{Username: "netops", Auth: ssh.AuthAgent, AgentSocket: empty}, "holds no key"},
		{"wrong password", &ssh.Credentials{Username: "netops", Auth: ssh.AuthPassword, Password: testPassword}, "unable to authenticate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, d := keyWorld(t, sshPub)
			w.creds = c.creds
			tg := w.newTarget(t, &ssh.HostKeys{File: w.knownHosts})
			// A bound for a hang, not a speed: decrypting the key (bcrypt)
			// takes seconds under the race detector on a busy machine.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// Two devices' worth of reads: the passphrase is asked once.
			_, err := tg.Read(ctx, d)
			if err == nil {
				_, err = tg.Read(ctx, d)
			}
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("%v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("%v, want an error with %q", err, c.wantErr)
			}
			if err != nil {
				t.Log(err)
				assertNoSecret(t, err.Error())
				if strings.Contains(err.Error(), passphrase) {
					t.Fatalf("the error carries the passphrase: %v", err)
				}
			}
		})
	}
	if asked != 1 {
		t.Errorf("the passphrase was asked %d times, want once", asked)
	}
}
