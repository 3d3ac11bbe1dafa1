package monitoring

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// LinksDir is the directory of the link info series' file in a build,
// which a node_exporter's textfile collector reads on the Prometheus host
// (LinksExporterFile).
const LinksDir = "monitoring/textfile/"

// LinksFile is the link info series' file: one for the whole fabric.
const LinksFile = LinksDir + "links.prom"

// LinksExporterFile holds the flags of that node_exporter.
const LinksExporterFile = "monitoring/links-exporter.args"

// LinkInfo is the info series that labels every cabled port with the other
// end of its cable, its rail and its tenants, for PromQL joins:
// `... * on(device, port) group_left(peer_device, peer_port, rail, tenant)
// rocefab_link_info`.
const LinkInfo = "rocefab_link_info"

// linksListen is where the links node_exporter listens: on the Prometheus
// host, beside the host's own node_exporter on node_exporter's default
// port, so on the next one.
const linksListen = "localhost:9101"

// renderLinks renders the link info file and its node_exporter's flags.
//
// Each port with a cable, of a server's NIC or of a switch, is one series
// `rocefab_link_info{device,port,peer_device,peer_port,rail,tenant} 1`:
// the device and port as doctor names them, the cable's other end, the
// rail (a NIC's, a switch port's facing a NIC, else a rail leaf's) and the
// tenants whose server ranges name the server on the cable, comma-joined
// (an empty label is no label in Prometheus, so a port without a rail or
// tenant has none). The labels cannot come from the scrape configuration:
// a relabelling rule per port does not scale, and Prometheus loads no
// series from its configuration. node_exporter's textfile collector
// exposes the series of the *.prom files of its --collector.textfile.directory
// as they are (prometheus/node_exporter README, "Textfile Collector");
// each file states the family's HELP and TYPE, which the collector keeps.
// One file, not one per server or port: a build writes it in one pass,
// and Prometheus scrapes it from one target.
func renderLinks(fab *ir.Fabric, tenants map[string]string) []renderers.Artifact {
	// A switch port facing a NIC takes the NIC's rail: a rail leaf's own,
	// so the NICs are looked up only below a leaf of no rail.
	var nicRail map[[2]string]int
	railOf := func(server, port string) (int, bool) {
		if nicRail == nil {
			nicRail = map[[2]string]int{}
			for _, d := range fab.Devices {
				if d.Host != nil {
					for _, n := range d.Host.NICs {
						nicRail[[2]string{d.Name, n.Port}] = n.Rail
					}
				}
			}
		}
		r, ok := nicRail[[2]string{server, port}]
		return r, ok
	}
	// A 100,000-GPU fabric has 600,000 cabled ports: the lines are
	// appended, without fmt, to one buffer sized for them (a line takes
	// about 117 bytes there).
	ports := 0
	for _, d := range fab.Devices {
		if d.Host != nil {
			ports += len(d.Host.NICs)
		} else if d.Switch != nil {
			for _, p := range d.Switch.Ports {
				if p.Peer != "" {
					ports++
				}
			}
		}
	}
	b := make([]byte, 0, 128*ports+512)
	b = fmt.Appendf(b, "# Link info of fabric %q, written by rocefab: do not edit, rebuild.\n", fab.Name)
	b = fmt.Appendf(b, "# HELP %s Each cabled port of the fabric, with the other end of its cable, its rail and tenants.\n", LinkInfo)
	b = fmt.Appendf(b, "# TYPE %s gauge\n", LinkInfo)
	label := func(name, value string) {
		b = append(b, name...)
		b = append(b, '=', '"')
		b = appendLabelValue(b, value)
		b = append(b, '"')
	}
	line := func(dev, port, peer, peerPort string, rail int, tenant string) {
		b = append(b, LinkInfo+"{"...)
		label("device", dev)
		label(",port", port)
		label(",peer_device", peer)
		label(",peer_port", peerPort)
		if rail >= 0 {
			b = append(b, `,rail="`...)
			b = strconv.AppendInt(b, int64(rail), 10)
			b = append(b, '"')
		}
		if tenant != "" {
			label(",tenant", tenant)
		}
		b = append(b, "} 1\n"...)
	}
	for _, d := range fab.Devices {
		switch {
		case d.Host != nil:
			tenant := tenants[d.Name]
			for _, n := range d.Host.NICs {
				if n.Peer != "" {
					line(d.Name, n.Port, n.Peer, n.PeerPort, n.Rail, tenant)
				}
			}
		case d.Switch != nil:
			for _, p := range d.Switch.Ports {
				if p.Peer == "" {
					continue
				}
				rail, tenant := d.Rail, ""
				if p.Facing == ir.RoleHost {
					if rail < 0 {
						if r, ok := railOf(p.Peer, p.PeerPort); ok {
							rail = r
						}
					}
					tenant = tenants[p.Peer]
				}
				line(d.Name, p.Name, p.Peer, p.PeerPort, rail, tenant)
			}
		}
	}
	// The flags: node_exporter's collectors each have --collector.<name>,
	// --collector.disable-defaults turns off those on by default
	// (collector/collector.go), and the textfile collector reads
	// --collector.textfile.directory (collector/textfile.go).
	var args strings.Builder
	fmt.Fprintf(&args, "# node_exporter flags that serve %s of fabric %q, written by rocefab: do not edit, rebuild.\n", LinkInfo, fab.Name)
	args.WriteString("# Run node_exporter with them in the monitoring directory, on the Prometheus host\n")
	args.WriteString("# (prometheus.yml's job rocefab-links scrapes it): its textfile collector alone.\n")
	fmt.Fprintf(&args, "ARGS=\"--collector.disable-defaults --collector.textfile --collector.textfile.directory=%s --web.listen-address=%s\"\n",
		strings.TrimSuffix(strings.TrimPrefix(LinksDir, "monitoring/"), "/"), linksListen)
	return []renderers.Artifact{
		{Path: LinksFile, Format: renderers.Text, Content: b},
		{Path: LinksExporterFile, Format: renderers.Env, Content: []byte(args.String())},
	}
}

// appendLabelValue appends a label value escaped as the text exposition
// format escapes it (\\, \", \n).
func appendLabelValue(b []byte, s string) []byte { return renderers.AppendEscaped(b, s, "\\\"\n") }
