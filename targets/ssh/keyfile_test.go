package ssh_test

import (
	"crypto/ed25519"
	"encoding/pem"
	"os"
	"os/exec"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// encryptKey writes priv to path as an OpenSSH key file encrypted with
// passphrase, by ssh-keygen -p with one round of bcrypt where the
// library's MarshalPrivateKeyWithPassphrase takes 16: each of those costs
// a second of CPU under the race detector, and the round count is the
// file's, which the transport reads whatever it is. Without ssh-keygen,
// the library writes it.
func encryptKey(t *testing.T, priv ed25519.PrivateKey, path, passphrase string) {
	t.Helper()
	blk, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("ssh-keygen"); err == nil {
		if out, err := exec.Command("ssh-keygen", "-q", "-p", "-a", "1", "-P", "", "-N", passphrase, "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen -p: %v: %s", err, out)
		}
		return
	}
	if blk, err = gossh.MarshalPrivateKeyWithPassphrase(priv, "", []byte(passphrase)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
}
