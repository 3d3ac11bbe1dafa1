package doctor_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	// The CLI's wiring registers the platforms routing reaches devices
	// with (routing.Register).
	_ "github.com/rocefab/rocefab/cmd/rocefab/cli"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/doctor"
	"github.com/rocefab/rocefab/targets/gnmi"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
	"github.com/rocefab/rocefab/targets/routing"
	"github.com/rocefab/rocefab/targets/ssh"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// nativePlatforms are the platforms the SSH target's devices are read
// and changed as: each device's own.
func nativePlatforms(d *ir.Device) (renderers.Platform, error) {
	desc, _ := routing.Lookup(d.Platform)
	return desc.Renderer.(renderers.Platform), nil
}

// emulatedSwitch is an SSH switch emulator whose faults a test sets.
type emulatedSwitch interface {
	sshtest.Shell
	SetFaults(sshtest.Faults)
}

// serveSwitch serves d's running configuration from pod-2048's running/
// on an emulator of its CLI (EOS sessions with a commit timer, NVUE
// revisions applied with --confirm), which changes it with the platform's
// own Applier, and returns a route that reaches it over SSH.
func serveSwitch(t *testing.T, d *ir.Device) (*routing.Route, emulatedSwitch) {
	t.Helper()
	desc, _ := routing.Lookup(d.Platform)
	running, err := os.ReadFile(filepath.Join(rendertest.RepoRoot(t), "examples", "pod-2048", "running", d.Name, desc.Artifact))
	if err != nil {
		t.Fatal(err)
	}
	return serveRunning(t, d, running)
}

// serveRunning serves running, d's configuration, on an emulator of d's
// platform: EOS, NX-OS (a checkpoint rocefab rolls back to) and NVUE
// change it with the platform's own Applier, SONiC with its GCU patches.
func serveRunning(t *testing.T, d *ir.Device, running []byte) (*routing.Route, emulatedSwitch) {
	t.Helper()
	desc, _ := routing.Lookup(d.Platform)
	applier := desc.Renderer.(renderers.Applier)
	apply := func(cfg []byte, lines string) ([]byte, error) {
		arts, err := applier.Apply([]renderers.Artifact{{Path: d.Name + "/" + desc.Artifact, Content: cfg}},
			renderers.Remediation{Format: renderers.Text, Content: []byte(lines)})
		if err != nil {
			return nil, err
		}
		return arts[0].Content, nil
	}
	var sw emulatedSwitch
	switch d.Platform {
	case ir.PlatformEOS:
		sw = sshtest.NewEOS(d.Name, running, apply)
	case ir.PlatformNXOS:
		sw = sshtest.NewNXOS(d.Name, running, apply)
	case ir.PlatformNVUE:
		sw = sshtest.NewNVUE(d.Name, "cumulus", running, apply)
	case ir.PlatformSONiC:
		sw = sshtest.NewSONiC(running)
	default:
		t.Fatalf("no emulator of %s", d.Platform)
	}
	hk, err := sshtest.NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sshtest.Serve(sw, hk, sshtest.Credentials{User: "cumulus", Password: "pw-not-printed"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, []byte(srv.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	creds := &ssh.Credentials{Username: "cumulus", Auth: ssh.AuthPassword, Password: "pw-not-printed"}
	tg, err := ssh.New(ssh.Options{
		Endpoint: func(*ir.Device) (ssh.Endpoint, error) {
			return ssh.Endpoint{Address: srv.Addr, Credentials: creds, Artifact: desc.Artifact}, nil
		},
		HostKeys:       &ssh.HostKeys{File: kh},
		CommandTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return &routing.Route{Target: tg, Platforms: nativePlatforms}, sw
}

// refused applies q's shut through route with the device refusing it
// (fault): the commit is rolled back and the port is up as before.
func refused(t *testing.T, route *routing.Route, fab *ir.Fabric, q *doctor.Quarantine, port doctor.Endpoint, what string) {
	t.Helper()
	ports := doctor.Ports{Target: route.Target, Platforms: route.Platforms, Fabric: fab, ConfirmTimeout: 30 * time.Second, Timeout: 20 * time.Second}
	out, err := q.SetPorts(context.Background(), ports)
	if err == nil || out[0].State != targets.RolledBack {
		t.Fatalf("%s: %+v, %v; want it rolled back", what, out, err)
	}
	if st := portState(t, route, fab, port); st != renderers.AdminUp {
		t.Fatalf("%s: %s is %s after the rollback", what, port, st)
	}
}

// TestQuarantineShutSSH shuts and releases the spine end of a lossy spine
// cable on an emulated NVUE switch and the leaf end of a lossy server
// cable on an emulated EOS switch, over real SSH with each platform's
// commit-confirm. A confirmation the switch refuses, and a shut it
// refuses, are rolled back and leave the port up.
func TestQuarantineShutSSH(t *testing.T) {
	fab := fabric(t, "pod-2048")
	for _, c := range cablePlans {
		t.Run(c.name, func(t *testing.T) {
			q, port := c.plan(t)
			route, sw := serveSwitch(t, devOf(t, fab, port.Device))
			shutAndRelease(t, route, fab, q, port)
			sw.SetFaults(sshtest.Faults{RefuseConfirm: true})
			refused(t, route, fab, q, port, "a refused confirmation")
			reject := "shutdown"
			if devOf(t, fab, port.Device).Platform == ir.PlatformNVUE {
				reject = "link state"
			}
			sw.SetFaults(sshtest.Faults{Reject: reject})
			refused(t, route, fab, q, port, "a refused shut")
		})
	}
}

// portPlan is a quarantine plan that shuts the first port of switch
// name in fab that faces a peer, as a lossy cable counted at it would
// have doctor write.
func portPlan(t *testing.T, fab *ir.Fabric, name string) (*doctor.Quarantine, doctor.Endpoint) {
	t.Helper()
	for _, p := range devOf(t, fab, name).Switch.Ports {
		if p.Peer == "" {
			continue
		}
		at := doctor.Endpoint{Device: name, Port: p.Name}
		q := &doctor.Quarantine{Kind: doctor.KindQuarantine, FormatVersion: doctor.QuarantineFormatVersion, Fabric: fab.Name,
			Drains: []doctor.Drain{}, Shuts: []doctor.Shut{{Kind: doctor.KindLinkErrors, Cause: doctor.CauseFCS, Origin: at,
				Peer: &doctor.Endpoint{Device: p.Peer, Port: p.PeerPort}, Port: at, Admin: renderers.AdminDown}}}
		q.SHA256 = q.Digest()
		if err := q.Check(fab); err != nil {
			t.Fatal(err)
		}
		return q, at
	}
	t.Fatalf("%s has no cabled port", name)
	return nil, doctor.Endpoint{}
}

// TestQuarantineShutSSHRendered shuts and releases a port of an NX-OS
// spine (multitenant) and of a SONiC leaf (mixed-fleet), each running
// what rocefab renders for it, over real SSH to the emulators: NX-OS
// inside the checkpoint rocefab rolls back to, SONiC by a GCU patch of
// admin_status in a checkpoint. A refused confirmation and a refused
// shut roll back and leave the port up.
func TestQuarantineShutSSHRendered(t *testing.T) {
	for _, c := range []struct{ example, platform, reject string }{
		{"multitenant", ir.PlatformNXOS, "shutdown"},
		{"mixed-fleet", ir.PlatformSONiC, "admin_status"},
	} {
		t.Run(c.platform, func(t *testing.T) {
			fab := fabric(t, c.example)
			var d *ir.Device
			for _, dev := range fab.Devices {
				if dev.Switch != nil && dev.Platform == c.platform {
					d = dev
					break
				}
			}
			desc, _ := routing.Lookup(d.Platform)
			arts, err := desc.Renderer.Render(d)
			if err != nil {
				t.Fatal(err)
			}
			q, port := portPlan(t, fab, d.Name)
			route, sw := serveRunning(t, d, arts[0].Content)
			shutAndRelease(t, route, fab, q, port)
			sw.SetFaults(sshtest.Faults{RefuseConfirm: true})
			refused(t, route, fab, q, port, "a refused confirmation")
			sw.SetFaults(sshtest.Faults{Reject: c.reject})
			refused(t, route, fab, q, port, "a refused shut")
		})
	}
}

// TestQuarantineShutGNMI shuts and releases the leaf end of a lossy
// server cable on an in-process gNMI target with the commit-confirmed
// extension, through the gNMI target as an OpenConfig tree; a Set the
// device refuses leaves the port up.
func TestQuarantineShutGNMI(t *testing.T) {
	fab := fabric(t, "pod-2048")
	q, port := leafCablePlan(t)
	d := devOf(t, fab, port.Device)
	arts, err := openconfig.Renderer{}.Render(d)
	if err != nil {
		t.Fatal(err)
	}
	srv := gnmitest.Started(t, arts[0].Content, gnmitest.Options{CommitConfirm: true})
	tg, err := gnmi.New(gnmi.Options{
		Artifact:  openconfig.FileName,
		Plaintext: true,
		Address:   func(*ir.Device) (string, error) { return srv.Addr(), nil },
		Timeout:   10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	route := &routing.Route{Target: tg, Platforms: func(*ir.Device) (renderers.Platform, error) { return openconfig.Platform{}, nil }}
	shutAndRelease(t, route, fab, q, port)
	if srv.Pending() {
		t.Error("a commit still waits for its confirmation")
	}
	srv.SetFaults(gnmitest.Faults{RejectSet: codes.FailedPrecondition})
	refused(t, route, fab, q, port, "a refused Set")
}
