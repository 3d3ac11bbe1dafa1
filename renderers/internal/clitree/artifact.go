package clitree

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/rocefab/rocefab/renderers"
)

// Running returns the content of the running artifact named file, nil when
// the device has none (it runs nothing rocefab owns yet), and an error for
// two of them.
func Running(running []renderers.Artifact, file string) ([]byte, error) {
	at, err := renderers.RunningFile(running, file)
	if err != nil {
		return nil, err
	}
	if at < 0 {
		return nil, nil
	}
	if err := CheckText(running[at].Path, running[at].Content); err != nil {
		return nil, err
	}
	return running[at].Content, nil
}

// MaxLine is the longest line a running configuration may have. CLI
// lines are short (a command and its arguments; EOS and NX-OS print
// long lists such as a DLB interface list on one line, a few kilobytes);
// a longer one is not `show running-config` output.
const MaxLine = 64 << 10

// CheckText refuses content that is not the text of a running
// configuration, naming name:line:col of the first offending byte and
// what was expected: bytes that are not UTF-8, a NUL or another control
// character (tab and carriage return are text), a line longer than
// MaxLine, and a file whose last line has no newline (a file cut short:
// the SSH transports end what a device prints with one). Without it,
// random bytes would read as a configuration with nothing of rocefab's in
// it and be planned as a device to configure from scratch.
func CheckText(name string, b []byte) error {
	line, col, start := 1, 1, 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Errorf("%s:%d:%d: byte 0x%02x is not UTF-8: a running configuration is text", name, line, col, b[i])
		case r == 0:
			return fmt.Errorf("%s:%d:%d: a NUL byte: a running configuration is text", name, line, col)
		case r == '\n':
			line, col, start = line+1, 1, i+1
			i++
			continue
		case r < 0x20 && r != '\t' && r != '\r', r == 0x7f:
			return fmt.Errorf("%s:%d:%d: control character %U: a running configuration is text", name, line, col, r)
		}
		if i+size-start > MaxLine {
			return fmt.Errorf("%s:%d:%d: the line is longer than %d bytes: not a line of a running configuration", name, line, col, MaxLine)
		}
		i += size
		col++
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return fmt.Errorf("%s:%d:%d: the file ends inside a line, without a newline: it was cut short, or is not `show running-config` text", name, line, col)
	}
	return nil
}

// ApplyArtifacts applies rem, CLI lines in text format, to the running
// artifact named file, creating it (in the directory of the first
// artifact, the device's) when the device has none. The other artifacts
// are returned as they were.
func (d *Dialect) ApplyArtifacts(running []renderers.Artifact, rem renderers.Remediation, file string, s Scope) ([]renderers.Artifact, error) {
	out := slices.Clone(running)
	if len(rem.Content) == 0 {
		return out, nil
	}
	if rem.Format != renderers.Text {
		return nil, fmt.Errorf("a remediation in %q, not CLI lines in %q", rem.Format, renderers.Text)
	}
	at, err := renderers.RunningFile(running, file)
	if err != nil {
		return nil, err
	}
	if at < 0 {
		out = append(out, renderers.Artifact{Path: renderers.NewArtifactPath(running, file), Format: renderers.Text})
		at = len(out) - 1
	}
	text, err := d.Apply(bytes.Clone(out[at].Content), rem.Content, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", out[at].Path, err)
	}
	if len(text) > 0 && text[len(text)-1] != '\n' {
		// `show running-config` text ends with a newline, and a file
		// without one reads as cut short (CheckText).
		text = append(text, '\n')
	}
	out[at].Content = text
	return out, nil
}
