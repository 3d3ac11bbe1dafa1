package renderers

import (
	"fmt"
	"regexp"

	"github.com/rocefab/rocefab/compiler/ir"
)

// NamePattern is the pattern every name that reaches an artifact or a path
// matches: devices, tenants, classes, port classes. It is the schema's name
// pattern (schema.NamePattern; a test keeps them equal), checked again here
// so that a model built some other way cannot put a shell or CLI
// metacharacter into a configuration, nor a '/' into a file name.
const NamePattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`

// InterfacePattern is the pattern of interface names (switch ports, NIC
// netdevs): a name that may also hold '/' ("Ethernet1/1"). It is
// schema.InterfacePattern; interfaces reach configurations, never paths.
const InterfacePattern = `^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`

var (
	nameRE      = regexp.MustCompile(NamePattern)
	interfaceRE = regexp.MustCompile(InterfacePattern)
)

// validName is NamePattern (or, with slash, InterfacePattern) written out:
// a 100,000-GPU build checks millions of names, and a regexp match costs
// ten times more. A test checks the two agree.
func validName(s string, slash bool) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		case i > 0 && slash && c == '/':
		default:
			return false
		}
	}
	return true
}

// CheckName returns an error naming what when s is not a safe name.
func CheckName(what, s string) error {
	if !validName(s, false) {
		return fmt.Errorf("unsafe %s %q: names must match %s", what, s, NamePattern)
	}
	return nil
}

// CheckInterface returns an error naming what when s is not a safe
// interface name.
func CheckInterface(what, s string) error {
	if !validName(s, true) {
		return fmt.Errorf("unsafe %s %q: interface names must match %s", what, s, InterfacePattern)
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
			if err := CheckInterface("port", p.Name); err != nil {
				return fmt.Errorf("%s: %w", d.Name, err)
			}
			if p.Peer != "" {
				if err := CheckName("peer", p.Peer); err != nil {
					return fmt.Errorf("%s: %w", d.Name, err)
				}
			}
			if p.PeerPort != "" {
				if err := CheckInterface("peer port", p.PeerPort); err != nil {
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
			checks := []struct {
				what, v string
				check   func(string, string) error
			}{{"NIC port", n.Port, CheckInterface}, {"HCA", n.HCA, CheckName}, {"peer", n.Peer, CheckName}, {"peer port", n.PeerPort, CheckInterface}}
			for _, c := range checks {
				if c.v == "" && c.what != "NIC port" {
					continue
				}
				if err := c.check(c.what, c.v); err != nil {
					return fmt.Errorf("%s: %w", d.Name, err)
				}
			}
		}
		if p := h.Profile; p != nil {
			for _, s := range p.Shaping {
				// An RDMA limit names the NICs it applies to, not one
				// interface.
				ifaces := append([]string{s.Interface}, s.NICs...)
				if s.Transport == ir.TransportRDMA {
					ifaces = s.NICs
				}
				for _, n := range ifaces {
					if err := CheckInterface("interface", n); err != nil {
						return fmt.Errorf("%s: %w", d.Name, err)
					}
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
