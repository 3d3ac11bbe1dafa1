// Package host renders the server side of a rocefab fabric: one idempotent
// bash script and one systemd unit per Linux server with NVIDIA ConnectX or
// BlueField NICs, and one NCCL environment file per tenant.
//
// # The script
//
// <device>/host.sh configures, for each RDMA netdev of the server, the DCBX
// mode, DSCP trust, the DSCP-to-priority map for all 64 DSCPs, the
// priority-to-traffic-class map with strict or ETS scheduling, the cable
// length the NIC sizes its receive headroom for, ECN per priority and the
// DCQCN parameters, the rdma_cm default ToS of each HCA, the netdev MTU, tc
// HTB egress shaping of the shaped classes, and, last, the PFC enable
// vector, whose change flaps the link on mlx5. It takes either path the
// intent names: mlnx_qos (MLNX_OFED / DOCA-OFED) or iproute2 dcb (inbox
// driver), and for ECN either the MLNX_OFED sysfs knobs or the inbox mlx5
// debugfs ones, whichever the server has.
//
// The script reads the current state first and writes only what differs, so
// it can run at every boot and as often as wanted. `host.sh --check` reports
// each difference on a DRIFT line and changes nothing (exit 1 on drift, 0 in
// sync, 2 when something could not be read); `host.sh --only shaping` runs
// one section, which also works under `ip netns exec`. Every string that
// came from the model is a single-quoted constant at the top of the script;
// the rest of the script is the same on every server.
//
// Everything the model says that the host cannot take is said in a comment
// of the script: per-priority ECN enable on the inbox driver (a firmware
// setting there), and that tc shapes only kernel-stack traffic, never RDMA.
//
// # The unit
//
// <device>/rocefab-qos.service runs the script, installed at [InstallPath],
// at boot once the netdevs exist, and again whenever one of them reappears
// (a driver reload), because none of these settings survive either.
//
// # Tenants
//
// [RenderTenant] writes tenants/<name>.env: the tenant's NCCL variables as
// sorted KEY=value lines whose values need no quoting, usable with `.`,
// `docker --env-file` and systemd's EnvironmentFile=.
package host
