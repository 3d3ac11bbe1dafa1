package renderers

import (
	"fmt"
	"regexp"

	"github.com/rocefab/rocefab/compiler/ir"
)

// NamePattern is the pattern every name that reaches an artifact matches. It
// is the schema's name pattern (schema.NamePattern; a test keeps them
// equal), checked again here so that a model built some other way cannot put
// a shell or CLI metacharacter into a configuration.
const NamePattern = `^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`

var nameRE = regexp.MustCompile(NamePattern)

// validName is NamePattern written out: a 100,000-GPU build checks millions
// of names, and a regexp match costs ten times more. A test checks the two
// agree.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '/' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// CheckName returns an error naming what when s is not a safe name.
func CheckName(what, s string) error {
	if !validName(s) {
		return fmt.Errorf("unsafe %s %q: names must match %s", what, s, NamePattern)
	}
	return nil
}

// CheckComment returns an error when s cannot go into a comment line of a
// configuration: it must be printable ASCII, with no line break that could
// end the comment and start a command. Catalog strings such as an ASIC's
// name ("Cisco Cloud Scale LS25600GX2A") are not names, but they reach
// comments.
func CheckComment(what, s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return fmt.Errorf("unsafe %s %q: only printable ASCII may reach a comment", what, s)
		}
	}
	return nil
}

// CheckDevice checks every name of d that a renderer may write: the device,
// its ports and peers, its classes, NIC ports and HCAs, shaped interfaces.
func CheckDevice(d *ir.Device) error {
	if err := CheckName("device name", d.Name); err != nil {
		return err
	}
	if s := d.Switch; s != nil {
		for _, p := range s.Ports {
			for what, v := range map[string]string{"port": p.Name, "peer": p.Peer, "peer port": p.PeerPort} {
				if v == "" && what != "port" {
					continue
				}
				if err := CheckName(what, v); err != nil {
					return fmt.Errorf("%s: %w", d.Name, err)
				}
			}
		}
		if s.QoS != nil {
			for _, q := range s.QoS.Queues {
				if q.Class != nil {
					if err := CheckName("class", q.Class.Name); err != nil {
						return fmt.Errorf("%s: %w", d.Name, err)
					}
				}
			}
		}
		for _, h := range s.Headrooms {
			if err := CheckName("headroom profile", h.Name); err != nil {
				return fmt.Errorf("%s: %w", d.Name, err)
			}
		}
	}
	if h := d.Host; h != nil {
		for _, n := range h.NICs {
			for what, v := range map[string]string{"NIC port": n.Port, "HCA": n.HCA, "peer": n.Peer, "peer port": n.PeerPort} {
				if v == "" && what != "NIC port" {
					continue
				}
				if err := CheckName(what, v); err != nil {
					return fmt.Errorf("%s: %w", d.Name, err)
				}
			}
		}
		if p := h.Profile; p != nil {
			for _, s := range p.Shaping {
				if err := CheckName("interface", s.Interface); err != nil {
					return fmt.Errorf("%s: %w", d.Name, err)
				}
				if s.Class != nil {
					if err := CheckName("class", s.Class.Name); err != nil {
						return fmt.Errorf("%s: %w", d.Name, err)
					}
				}
			}
		}
	}
	return nil
}
