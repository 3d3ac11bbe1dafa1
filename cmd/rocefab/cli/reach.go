package cli

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rocefab/rocefab/targets/routing"
)

// addSSHFlags adds the flags of the SSH transport to plan and apply.
func addSSHFlags(cmd *cobra.Command) {
	cmd.Flags().Bool(routing.IgnoreHostKeysFlag, false, "log in to SSH devices WITHOUT checking their host keys against known_hosts: anyone on the path can pose as them, for lab devices only")
}

// passphraseMu keeps two credentials' prompts from interleaving.
var passphraseMu sync.Mutex

// terminalPassphrase asks an encrypted key's passphrase on the terminal
// on stdin, without echo; without a terminal it returns nil, and the key
// must then be in the agent. The passphrase goes to the key's decryption
// only.
func terminalPassphrase(prompt io.Writer) func(string) ([]byte, error) {
	return ttyPassphrase(os.Stdin, prompt)
}

// ttyPassphrase asks on tty, when it is a terminal.
func ttyPassphrase(tty *os.File, prompt io.Writer) func(string) ([]byte, error) {
	fd := int(tty.Fd())
	if !term.IsTerminal(fd) {
		return nil
	}
	return func(keyFile string) ([]byte, error) {
		passphraseMu.Lock()
		defer passphraseMu.Unlock()
		fmt.Fprintf(prompt, "Enter passphrase for key %s: ", keyFile)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(prompt)
		return b, err
	}
}
