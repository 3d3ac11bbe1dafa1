// Package host renders the server side of a rocefab fabric: for each Linux
// server with NVIDIA ConnectX or BlueField, Broadcom bnxt_re or Intel irdma
// NICs its settings as data, once
// per build the runtime that applies them and one systemd template unit,
// and one NCCL environment file per tenant.
//
// # The runtime and the settings
//
// hosts/rocefab-host.sh ([RenderFabric]) is the runtime: the same bash
// script on every server, nothing in it from the intent. From a server's
// settings it configures, for each RDMA netdev, the DCBX mode, DSCP trust,
// the DSCP-to-priority map for all 64 DSCPs, the priority-to-traffic-class
// map with strict or ETS scheduling, the cable length the NIC sizes its
// receive headroom for, ECN per priority and the DCQCN parameters, the
// rdma_cm default ToS of each HCA, the netdev MTU, tc HTB egress shaping of
// the shaped classes, and, last, the PFC enable vector, whose change flaps
// the link on mlx5. It takes either path the intent names: mlnx_qos
// (MLNX_OFED / DOCA-OFED) or iproute2 dcb (inbox driver), and for ECN either
// the MLNX_OFED sysfs knobs or the inbox mlx5 debugfs ones, whichever the
// server has. Another vendor's NIC takes dcb, and its congestion control
// from NIC_CC in the driver's own configfs group (bnxt_re, irdma), in place
// of the mlx5 ECN knobs.
//
// <server>/host.conf ([Renderer]) holds a server's settings: single-quoted
// constants and arrays of them, which the runtime reads from
// [SettingsPath] or --settings FILE as data: it parses them with a grammar
// of its own (parse_settings) that accepts exactly the keys and value
// shapes this package writes and refuses any other line with its number,
// never sourcing or evaluating the file, so that a command appended to
// host.conf is refused, not run as root. The runtime's header states the
// SHA-256 of its body and carries it as RUNTIME_DIGEST; host.conf names the
// digest it was written for (SETTINGS_FOR_RUNTIME), and the runtime refuses
// settings for another runtime before reading them, so that a server never
// runs one build's runtime with another build's settings.
//
// The runtime reads the current state first and writes only what differs,
// so it can run at every boot and as often as wanted. --check reports each
// difference on a DRIFT line and changes nothing (exit 1 on drift, 0 in
// sync, 2 when something could not be read); --check --json prints every
// setting it checks as one JSON document (path, have, want), the running
// state plan reads ([Renderer.Parse]); --only shaping runs one
// section, which also works under `ip netns exec`; --netdev NAME only what
// concerns one interface. Runs take a lock (flock) and so run one at a time.
//
// Everything the model says that the host cannot take is said in a comment
// of the settings: per-priority ECN enable on the inbox driver (a firmware
// setting there), and that tc shapes only kernel-stack traffic, never RDMA.
//
// [ScriptRenderer] writes the single-file form, <server>/host.sh: the
// settings and the runtime in one script (build --emit host-script).
//
// # Plan and apply
//
// [Renderer] is also the platform plan and apply use for servers: Desired
// is the settings as the runtime reports them, Parse reads
// <server>/host-state.json (the --check --json report), Diff gives the
// settings that differ and, as the remediation, the host.conf to install
// with the runtime sections to run; Apply rewrites a report as the run
// would leave it. docs/ownership.md describes the scope.
//
// # The unit
//
// hosts/rocefab-qos@.service is a template: instance <netdev> runs the
// runtime, installed at [RuntimePath], with --netdev <netdev> whenever that
// netdev appears, at boot and after a driver reload, because none of these
// settings survive either. host.conf's header lists the instances a server
// enables: one per RDMA netdev and shaped interface.
//
// # Tenants
//
// [RenderTenant] writes tenants/<name>.env: the tenant's NCCL variables as
// sorted KEY=value lines whose values need no quoting, usable with `.`,
// `docker --env-file` and systemd's EnvironmentFile=.
package host
