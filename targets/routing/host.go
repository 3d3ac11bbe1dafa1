package routing

import (
	"context"
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/host"
	"github.com/rocefab/rocefab/targets/ssh"
)

// localAddress is the inventory address of a server rocefab runs on: its
// host runtime runs here, without SSH.
const localAddress = "localhost"

// hostEndpoint is how one server is reached: here, or over SSH.
type hostEndpoint struct {
	local bool
	ssh   ssh.Endpoint
}

// addHost routes server d, which the inventory reaches over SSH (or, at
// address localhost, here); its login settings were checked and made by
// add, ep is what they came to.
func (s *sshRoutes) addHost(d *ir.Device, sudo bool, ep hostEndpoint) {
	if s.hosts == nil {
		s.hosts = map[string]hostEndpoint{}
	}
	s.hosts[d.Name] = ep
	s.hostSudo = s.hostSudo || sudo
}

// hostTarget makes the target of the servers routed by addHost: the host
// runtime of this rocefab (the one every build writes), run through SSH
// logins made as targets/ssh makes them (credentials, known_hosts), or
// locally; behind `sudo -n` where the inventory says sudo. It returns what closes the logins' agent
// connections.
func (s *sshRoutes) hostTarget() (*host.Target, func(), error) {
	desc, ok := Lookup(ir.PlatformLinux)
	if !ok || desc.Runtime == nil || desc.Runtime.File == nil {
		return nil, nil, fmt.Errorf("internal error: no host runtime is registered for %s servers", ir.PlatformLinux)
	}
	dial, closeAll := ssh.Dialer()
	var prefix []string
	if s.hostSudo {
		prefix = host.SudoPrefix()
	}
	t, err := host.New(host.Options{
		Connect: func(ctx context.Context, d *ir.Device) (host.Conn, error) {
			ep, ok := s.hosts[d.Name]
			if !ok {
				return nil, fmt.Errorf("the inventory gives it no SSH address")
			}
			if ep.local {
				return host.Local(), nil
			}
			c, err := dial(ctx, d.Name, ep.ssh.Address, ep.ssh.Credentials, ep.ssh.HostKeys)
			if err != nil {
				return nil, err
			}
			return host.SSH(c), nil
		},
		Prefix:       prefix,
		Runtime:      desc.Runtime.File(),
		RuntimePath:  desc.Runtime.Path,
		SettingsPath: desc.Runtime.SettingsPath,
		StateFile:    desc.Running,
		Journal:      s.journal,
	})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return t, closeAll, nil
}
