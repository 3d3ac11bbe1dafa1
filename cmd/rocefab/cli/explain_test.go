package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/physics"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/inventory"
)

// renderDevice runs every renderer that applies to one device.
func renderDevice(d *ir.Device, opt renderOptions) ([]renderers.Artifact, error) {
	var out []renderers.Artifact
	for _, r := range deviceRenderers(opt)(d) {
		arts, err := r.Render(d)
		if err != nil {
			return nil, err
		}
		out = append(out, arts...)
	}
	return out, nil
}

// renderFabricWide renders the fabric-wide artifacts other than
// SUMMARY.md and inventory.json, which describe the build itself.
func renderFabricWide(fab *ir.Fabric) ([]renderers.Artifact, error) {
	var out []renderers.Artifact
	for _, r := range fabricRenderers {
		if _, ok := r.(inventory.Renderer); ok {
			continue
		}
		arts, err := r.RenderFabric(fab, out)
		if err != nil {
			return nil, err
		}
		out = append(out, arts...)
	}
	return out, nil
}

// notConfigured are the values explain prints that no artifact configures:
// figures of the model that lint checks against (the headroom floor, the
// buffer demand, the congested-queue count and the XOFF point ECN must stay
// under), the NIC's own headroom (mlx5 derives it from the cable length the
// host settings give) and a server's place in the fabric. Every other
// field must be found in the artifacts with its value; a field in neither
// list fails the test, so a new derivation is classified when it appears.
var notConfigured = map[string]string{
	"headroom-floor":     "the physics floor RF103 compares the headroom with",
	"buffer-demand":      "the budget RF104 checks",
	"congested-queues":   "the N of the XOFF point",
	"xoff-point":         "the point RF102 keeps ECN below; the switch computes it from its thresholds",
	"nic-xoff":           "mlx5 sizes it from CABLE_LEN, which host.conf holds",
	"ecn-loop-rtt":       "the DCQCN fluid model's loop delay",
	"ecn-utilisation":    "the DCQCN fluid model's prediction for the class's ECN profile",
	"ecn-queue":          "the DCQCN fluid model's prediction for the class's ECN profile",
	"ecn-marking-needed": "the fixed-point marking RF102 checks the ECN profile against",
	"ecn-phase-margin":   "the stability of the DCQCN fluid model's fixed point",
	"leaf-group":         "placement, in slurm/ and the node labels",
	"pod":                "placement, in slurm/ and the node labels",
	"fabric":             "placement, in slurm/ and the node labels",
}

// TestExplainMatchesArtifacts renders every example and checks each value
// explain prints (--format json) against the artifact that configures it,
// parsed in the platform's own form: headroom, xoff and xon per port class,
// the pools, the port MTU and the ECN thresholds of a switch; the MTU, the
// rdma_cm ToS and every tenant's NCCL_IB_TC and adaptive-routing setting
// of a server. It explains one switch per platform and role, one more for
// every port class not seen yet, and one server.
func TestExplainMatchesArtifacts(t *testing.T) {
	perPlatform := map[string]int{}
	defer func() {
		for _, p := range []string{ir.PlatformEOS, ir.PlatformNVUE, ir.PlatformSONiC, ir.PlatformNXOS, ir.PlatformLinux} {
			if perPlatform[p] == 0 {
				t.Errorf("no value of a %s device was checked", p)
			}
		}
	}()
	for _, ex := range []string{"pod-2048", "multitenant", "hyperscale-100k"} {
		t.Run(ex, func(t *testing.T) {
			src, fab, _ := compileExample(t, ex)
			wide, err := renderFabricWide(fab)
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{}
			for _, a := range wide {
				env[a.Path] = string(a.Content)
			}
			explainOf := exampleExplainer(t, src, fab)
			checked := 0
			for _, d := range pickDevices(fab) {
				arts, err := renderDevice(d, renderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				files := map[string]string{}
				for _, a := range arts {
					files[a.Path] = string(a.Content)
				}
				for _, v := range explainOf(d.Name) {
					if _, ok := notConfigured[stripIndex(v.Field)]; ok {
						continue
					}
					got, where, err := artifactValue(fab, d, files, env, v)
					switch {
					case err != nil:
						t.Errorf("%s %s %s = %d: %v", d.Name, v.Port, v.Field, v.Value, err)
					case got != v.Value:
						t.Errorf("%s %s %s: explain %d %s, %s holds %d", d.Name, v.Port, v.Field, v.Value, v.Unit, where, got)
					default:
						checked++
						perPlatform[d.Platform]++
					}
				}
			}
			if checked == 0 {
				t.Fatal("no value checked")
			}
		})
	}
}

// pickDevices returns one switch per platform and role, one more for
// every (platform, port class) not yet covered, and the first server.
func pickDevices(fab *ir.Fabric) []*ir.Device {
	var out []*ir.Device
	seen := map[string]bool{}
	for _, d := range fab.Switches() {
		take := !seen[d.Platform+"/"+string(d.Role)]
		for _, h := range d.Switch.Headrooms {
			take = take || !seen[d.Platform+"/"+h.Name]
		}
		if !take {
			continue
		}
		seen[d.Platform+"/"+string(d.Role)] = true
		for _, h := range d.Switch.Headrooms {
			seen[d.Platform+"/"+h.Name] = true
		}
		out = append(out, d)
	}
	if hs := fab.Hosts(); len(hs) > 0 {
		out = append(out, hs[0])
	}
	return out
}

// stripIndex turns "ecn-min[roce]" into "ecn-min".
func stripIndex(field string) string {
	f, _, _ := strings.Cut(field, "[")
	return f
}

// index returns the part of "ecn-min[roce]" in brackets.
func index(field string) string {
	_, rest, ok := strings.Cut(field, "[")
	if !ok {
		return ""
	}
	return strings.TrimSuffix(rest, "]")
}

// portClass returns the port class of an explained port, "Ethernet1/1
// (400G-3m)" → "400G-3m".
func portClass(port string) string {
	_, rest, ok := strings.Cut(port, " (")
	if !ok {
		return ""
	}
	return strings.TrimSuffix(rest, ")")
}

// artifactValue finds the value v configures in the device's artifacts (or
// the tenants' environment files), and says where it found it.
func artifactValue(fab *ir.Fabric, d *ir.Device, files, env map[string]string, v explained) (int64, string, error) {
	if d.Host != nil {
		return hostValue(fab, d, files, env, v)
	}
	class := portClass(v.Port)
	var h *ir.Headroom
	for _, x := range d.Switch.Headrooms {
		if x.Name == class {
			h = x
		}
	}
	if v.Port != "" && h == nil {
		return 0, "", fmt.Errorf("no port class %q on %s", class, d.Name)
	}
	switch d.Platform {
	case ir.PlatformSONiC:
		return sonicValue(d, files[d.Name+"/config_db.json"], h, v)
	case ir.PlatformNVUE:
		return nvueValue(d, files[d.Name+"/nvue.yaml"], h, v)
	case ir.PlatformEOS:
		return textValue(d, files[d.Name+"/eos.cfg"], "eos.cfg", h, v)
	case ir.PlatformNXOS:
		return textValue(d, files[d.Name+"/nxos.cfg"], "nxos.cfg", h, v)
	}
	return 0, "", fmt.Errorf("platform %s not covered", d.Platform)
}

// firstInt returns the first submatch of re in s as an integer.
func firstInt(re *regexp.Regexp, s string) (int64, bool) {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	return n, err == nil
}

func hostValue(fab *ir.Fabric, d *ir.Device, files, env map[string]string, v explained) (int64, string, error) {
	conf := files[d.Name+"/host.conf"]
	switch stripIndex(v.Field) {
	case "mtu":
		if n, ok := firstInt(regexp.MustCompile(`(?m)^readonly MTU=(\d+)$`), conf); ok {
			return n, "host.conf MTU", nil
		}
	case "roce-tos":
		if n, ok := firstInt(regexp.MustCompile(`(?m)^readonly ROCE_TOS=(\d+)$`), conf); ok {
			return n, "host.conf ROCE_TOS", nil
		}
	case "nccl-traffic-class":
		f := env["tenants/"+index(v.Field)+".env"]
		if n, ok := firstInt(regexp.MustCompile(`(?m)^(?:export )?NCCL_IB_TC=(\d+)$`), f); ok {
			return n, "tenants/" + index(v.Field) + ".env NCCL_IB_TC", nil
		}
	case "nccl-adaptive-routing":
		// Every tenant on the server that runs NCCL over RDMA has it.
		var got int64 = -1
		for _, t := range fab.Tenants {
			if (len(t.Servers) > 0 && !containsName(t.Servers, d.Name)) || t.NoRDMA {
				continue
			}
			n, ok := firstInt(regexp.MustCompile(`(?m)^(?:export )?`+ir.NCCLAdaptiveRouting+`=(\d+)$`), env["tenants/"+t.Name+".env"])
			if !ok {
				return 0, "", fmt.Errorf("tenants/%s.env sets no %s", t.Name, ir.NCCLAdaptiveRouting)
			}
			if got >= 0 && n != got {
				return 0, "", fmt.Errorf("tenants disagree on %s", ir.NCCLAdaptiveRouting)
			}
			got = n
		}
		return got, "every tenant's " + ir.NCCLAdaptiveRouting, nil
	default:
		return 0, "", fmt.Errorf("field not classified: add it to notConfigured or find it in the artifacts")
	}
	return 0, "", fmt.Errorf("not found in the server's artifacts")
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// queueOf returns the priority of the class an indexed field names.
func queueOf(d *ir.Device, field string) (int, error) {
	for _, q := range d.Switch.QoS.Queues {
		if q.Class != nil && q.Class.Name == index(field) {
			return q.ID, nil
		}
	}
	return 0, fmt.Errorf("no queue of class %q", index(field))
}

func sonicValue(d *ir.Device, doc string, h *ir.Headroom, v explained) (int64, string, error) {
	var db map[string]map[string]map[string]string
	if err := json.Unmarshal([]byte(doc), &db); err != nil {
		return 0, "", err
	}
	num := func(table, key, field string) (int64, string, error) {
		s, ok := db[table][key][field]
		if !ok {
			return 0, "", fmt.Errorf("config_db.json has no %s|%s %s", table, key, field)
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, table + "|" + key + " " + field, err
	}
	profile := ""
	if h != nil {
		profile = fmt.Sprintf("pg_lossless_%d_%sm_profile", h.SpeedGbps*1000, strconv.FormatFloat(h.CableM, 'f', -1, 64))
	}
	b := d.Switch.Buffers
	switch stripIndex(v.Field) {
	case "xoff", "xon":
		return num("BUFFER_PROFILE", profile, v.Field)
	case "headroom":
		// Spectrum reserves size = xoff + xon per PG; on Broadcom XGS the
		// headroom is the xoff drawn from the pool's shared headroom.
		if b.Convention == physics.ConventionBroadcomXGS {
			return num("BUFFER_PROFILE", profile, "xoff")
		}
		return num("BUFFER_PROFILE", profile, "size")
	case "pg-minimum":
		// Broadcom XGS: every lossless profile's size is the PG's reserved
		// minimum.
		var got int64 = -1
		for _, x := range d.Switch.Headrooms {
			name := fmt.Sprintf("pg_lossless_%d_%sm_profile", x.SpeedGbps*1000, strconv.FormatFloat(x.CableM, 'f', -1, 64))
			n, _, err := num("BUFFER_PROFILE", name, "size")
			if err != nil || (got >= 0 && n != got) {
				return 0, "", fmt.Errorf("lossless profiles disagree on size: %v", err)
			}
			got = n
		}
		return got, "every lossless BUFFER_PROFILE size", nil
	case "reserved-pool":
		if b.Convention == physics.ConventionBroadcomXGS {
			// The reserve bounds lossy egress: of the ingress pool (the
			// buffer less the SDK's cells and the minimums), what lossy
			// traffic can hold leaves the reserve and the headroom pool.
			size, _, err := num("BUFFER_POOL", "ingress_lossless_pool", "size")
			if err != nil {
				return 0, "", err
			}
			xoff, _, err := num("BUFFER_POOL", "ingress_lossless_pool", "xoff")
			if err != nil {
				return 0, "", err
			}
			n, where, err := num("BUFFER_POOL", "egress_lossy_pool", "size")
			return size - xoff - n, "BUFFER_POOL|ingress_lossless_pool size − its xoff − " + where, err
		}
		return num("BUFFER_POOL", "ingress_lossless_pool", "size")
	case "lossless-pool":
		// Broadcom XGS: the one ingress pool less its shared headroom and
		// less what lossy traffic can hold, the egress lossy pool.
		s, _, err1 := num("BUFFER_POOL", "ingress_lossless_pool", "size")
		x, _, err2 := num("BUFFER_POOL", "ingress_lossless_pool", "xoff")
		l, _, err3 := num("BUFFER_POOL", "egress_lossy_pool", "size")
		if err := errors.Join(err1, err2, err3); err != nil {
			return 0, "", err
		}
		return s - x - l, "ingress_lossless_pool size − xoff − egress_lossy_pool size", nil
	case "headroom-pool":
		if b.Convention == physics.ConventionBroadcomXGS {
			return num("BUFFER_POOL", "ingress_lossless_pool", "xoff")
		}
		// Spectrum charges each PG's headroom outside the pools: what the
		// ingress pools leave of the buffer.
		l, _, err1 := num("BUFFER_POOL", "ingress_lossless_pool", "size")
		y, _, err2 := num("BUFFER_POOL", "ingress_lossy_pool", "size")
		if err1 != nil || err2 != nil {
			return 0, "", fmt.Errorf("ingress pools: %v %v", err1, err2)
		}
		return b.TotalBytes - l - y, "buffer − ingress pools", nil
	case "mtu":
		return num("PORT", d.Switch.Ports[0].Name, "mtu")
	case "pfc-watchdog-detect":
		return num("PFC_WD", d.Switch.Ports[0].Name, "detection_time")
	case "pfc-watchdog-restore":
		return num("PFC_WD", d.Switch.Ports[0].Name, "restoration_time")
	case "ecn-min", "ecn-max":
		for name, p := range db["WRED_PROFILE"] {
			_ = name
			f := "green_min_threshold"
			if stripIndex(v.Field) == "ecn-max" {
				f = "green_max_threshold"
			}
			// The class's queue names its profile.
			prio, err := queueOf(d, v.Field)
			if err != nil {
				return 0, "", err
			}
			for k, q := range db["QUEUE"] {
				if strings.HasSuffix(k, "|"+strconv.Itoa(prio)) && strings.Trim(q["wred_profile"], "[]") == name {
					n, err := strconv.ParseInt(p[f], 10, 64)
					return n, "WRED_PROFILE|" + name + " " + f, err
				}
			}
		}
		return 0, "", fmt.Errorf("no WRED_PROFILE on the queue of class %s", index(v.Field))
	}
	return 0, "", fmt.Errorf("field not classified: add it to notConfigured or find it in config_db.json")
}

func nvueValue(d *ir.Device, doc string, h *ir.Headroom, v explained) (int64, string, error) {
	var root []map[string]map[string]any
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		return 0, "", err
	}
	get := func(path ...string) (any, bool) {
		var cur any = root[0]["set"]
		for _, p := range path {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[p]; !ok {
				return nil, false
			}
		}
		return cur, true
	}
	num := func(path ...string) (int64, string, error) {
		x, ok := get(path...)
		n, isInt := x.(int)
		if !ok || !isInt {
			return 0, "", fmt.Errorf("nvue.yaml has no number at %s", strings.Join(path, "."))
		}
		return int64(n), strings.Join(path, "."), nil
	}
	b := d.Switch.Buffers
	switch stripIndex(v.Field) {
	case "headroom":
		return num("qos", "pfc", h.Name, "port-buffer")
	case "xoff", "xon":
		// NVUE derives xoff and xon itself (the renderer sets neither);
		// the port class's comment states the model's values.
		re := regexp.MustCompile(`# Port class ` + regexp.QuoteMeta(h.Name) + `: .*\(xoff (\d+) B, xon (\d+) B`)
		m := re.FindStringSubmatch(doc)
		if m == nil {
			return 0, "", fmt.Errorf("nvue.yaml states no xoff/xon for %s", h.Name)
		}
		s := m[1]
		if v.Field == "xon" {
			s = m[2]
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, "the port class comment (not configured: NVUE derives it)", err
	case "reserved-pool":
		pct, where, err := num("qos", "traffic-pool", "roce-lossless", "memory-percent")
		if err != nil {
			return 0, "", err
		}
		return physics.ReservedPool(b.TotalBytes, int(pct)).Value, where + " of the buffer", nil
	case "headroom-pool":
		// Spectrum reserves headroom per port: the port-buffer of every
		// port class over its ports and lossless priorities.
		var sum int64
		for _, x := range d.Switch.Headrooms {
			pb, _, err := num("qos", "pfc", x.Name, "port-buffer")
			if err != nil {
				return 0, "", err
			}
			ports := 0
			for _, p := range d.Switch.Ports {
				if p.Headroom == x {
					ports++
				}
			}
			sum += pb * int64(ports) * int64(len(d.Switch.QoS.PFC))
		}
		return sum, "Σ port-buffer · ports · lossless priorities", nil
	case "mtu":
		return num("interface", d.Switch.Ports[0].Name, "link", "mtu")
	case "pfc-watchdog-detect", "pfc-watchdog-restore":
		// NVUE detects after robustness polling intervals and restores
		// after one.
		poll, where, err := num("qos", "pfc-watchdog", "polling-interval")
		if err != nil || v.Field == "pfc-watchdog-restore" {
			return poll, where, err
		}
		rob, _, err := num("qos", "pfc-watchdog", "robustness")
		return poll * rob, "polling-interval · robustness", err
	case "ecn-min", "ecn-max":
		prio, err := queueOf(d, v.Field)
		if err != nil {
			return 0, "", err
		}
		f := "min-threshold"
		if stripIndex(v.Field) == "ecn-max" {
			f = "max-threshold"
		}
		return num("qos", "congestion-control", "default-global", "traffic-class", strconv.Itoa(prio), f)
	}
	return 0, "", fmt.Errorf("field not classified: add it to notConfigured or find it in nvue.yaml")
}

// textValue reads a value from an EOS or NX-OS configuration: the
// statements that configure it, or, for what the platform computes
// itself, the comment that states the model's value beside the port.
func textValue(d *ir.Device, cfg, name string, h *ir.Headroom, v explained) (int64, string, error) {
	find := func(re string) (int64, string, error) {
		n, ok := firstInt(regexp.MustCompile(re), cfg)
		if !ok {
			return 0, "", fmt.Errorf("%s has no line matching %s", name, re)
		}
		return n, name + " " + re, nil
	}
	classRe := func(what string) string {
		if d.Platform == ir.PlatformEOS {
			return `headroom class ` + regexp.QuoteMeta(h.Name) + `: (?:\d+ B per lossless priority \(xoff (\d+) B, xon (\d+) B\))`
		}
		return regexp.QuoteMeta(h.Name) + `\D[^\n]*` + what
	}
	switch stripIndex(v.Field) {
	case "headroom":
		if d.Platform == ir.PlatformEOS {
			return find(`headroom class ` + regexp.QuoteMeta(h.Name) + `: (\d+) B per lossless priority`)
		}
		return find(regexp.QuoteMeta(h.Name) + `[^\n]*?(?:headroom|size) (\d+) B`)
	case "xoff":
		if d.Platform == ir.PlatformEOS {
			return find(classRe("xoff"))
		}
		return find(regexp.QuoteMeta(h.Name) + `[^\n]*?xoff (\d+) B`)
	case "xon":
		if d.Platform == ir.PlatformEOS {
			m := regexp.MustCompile(classRe("xon")).FindStringSubmatch(cfg)
			if m == nil {
				return 0, "", fmt.Errorf("eos.cfg states no xon for %s", h.Name)
			}
			n, err := strconv.ParseInt(m[2], 10, 64)
			return n, "eos.cfg port comment", err
		}
		return find(regexp.QuoteMeta(h.Name) + `[^\n]*?xon (\d+) B`)
	case "headroom-pool":
		if d.Platform == ir.PlatformEOS {
			return find(`(?m)^platform trident mmu headroom-pool limit bytes (\d+)$`)
		}
		return find(`model headroom over all ports and lossless priorities: (\d+) B`)
	case "shared-pool":
		if d.Platform == ir.PlatformEOS {
			return find(`on the shared pool \((\d+) B\)`)
		}
		return find(`shared pool (\d+) B`)
	case "mtu":
		return find(`(?m)^ +mtu (\d+)$`)
	case "pfc-watchdog-detect", "pfc-watchdog-restore":
		if d.Platform == ir.PlatformEOS {
			// Seconds with up to two decimals (switches.md §1.1).
			key := "timeout"
			if v.Field == "pfc-watchdog-restore" {
				key = "recovery-time"
			}
			m := regexp.MustCompile(`(?m)^priority-flow-control pause watchdog default ` + key + ` ([0-9.]+)$`).FindStringSubmatch(cfg)
			if m == nil {
				return 0, "", fmt.Errorf("eos.cfg has no watchdog %s", key)
			}
			sec, err := strconv.ParseFloat(m[1], 64)
			return int64(sec*1000 + 0.5), "eos.cfg watchdog default " + key, err
		}
		// NX-OS: an interval times a multiplier each.
		interval, _, err := find(`(?m)^priority-flow-control watch-dog interval (\d+)$`)
		if err != nil {
			return 0, "", err
		}
		re := `(?m)^priority-flow-control watch-dog shutdown-multiplier (\d+)$`
		if v.Field == "pfc-watchdog-restore" {
			re = `(?m)^priority-flow-control auto-restore multiplier (\d+)$`
		}
		mult, where, err := find(re)
		return interval * mult, "interval · " + where, err
	case "ecn-min", "ecn-max":
		// The random-detect line in the block of the class's queue:
		// "uc-tx-queue N" on EOS, "class type queuing c-out-8q-qN" on NX-OS.
		prio, err := queueOf(d, v.Field)
		if err != nil {
			return 0, "", err
		}
		head := fmt.Sprintf(`(?m)^ +uc-tx-queue %d$`, prio)
		line := `random-detect ecn minimum-threshold (\d+) bytes maximum-threshold (\d+) bytes`
		unit := int64(1)
		if d.Platform == ir.PlatformNXOS {
			head = fmt.Sprintf(`(?m)^ +class type queuing c-out-8q-q%d$`, prio)
			line, unit = `random-detect minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes`, 1024
		}
		loc := regexp.MustCompile(head).FindStringIndex(cfg)
		if loc == nil {
			return 0, "", fmt.Errorf("%s has no block for queue %d", name, prio)
		}
		block := cfg[loc[1]:]
		if next := regexp.MustCompile(`(?m)^ +(uc-tx-queue|class type queuing) `).FindStringIndex(block); next != nil {
			block = block[:next[0]]
		}
		m := regexp.MustCompile(line).FindStringSubmatch(block)
		if m == nil {
			return 0, "", fmt.Errorf("%s: queue %d has no random-detect line", name, prio)
		}
		k := m[1]
		if stripIndex(v.Field) == "ecn-max" {
			k = m[2]
		}
		n, err := strconv.ParseInt(k, 10, 64)
		return n * unit, fmt.Sprintf("%s queue %d random-detect", name, prio), err
	}
	return 0, "", fmt.Errorf("field not classified: add it to notConfigured or find it in %s", name)
}

// explain DEVICE ecn prints, for each lossless class with ECN, what the
// DCQCN fluid model predicts at the fabric's loop RTT: the utilisation and
// mean queue, the marking the fixed point needs and the fixed point's
// phase margin, besides the thresholds and the loop RTT itself.
func TestExplainECNPredicts(t *testing.T) {
	src := filepath.Join(t.TempDir(), "fabric.cue")
	if err := os.WriteFile(src, []byte(`name: "x"
topology: {servers: 16, rails: 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]explained{}
	for _, v := range explainJSON(t, src, "leaf-r0-00") {
		got[v.Field] = v
	}
	for _, f := range []string{"ecn-loop-rtt", "ecn-min[roce]", "ecn-max[roce]", "ecn-utilisation[roce]", "ecn-queue[roce]",
		"ecn-marking-needed[roce]", "ecn-phase-margin[roce]"} {
		v, ok := got[f]
		if !ok {
			t.Errorf("explain leaf-r0-00 prints no %s", f)
			continue
		}
		if v.Formula == "" {
			t.Errorf("%s: no formula", f)
		}
	}
	if u := got["ecn-utilisation[roce]"]; u.Value < 90 || u.Unit != "%" {
		t.Errorf("ecn-utilisation[roce] = %d %s, want at least 90 %%", u.Value, u.Unit)
	}
	if pm := got["ecn-phase-margin[roce]"]; !strings.Contains(pm.Formula, "stable: the queue settles") {
		t.Errorf("ecn-phase-margin[roce]: %s, want the defaults stable on an SN5600 leaf", pm.Formula)
	}
}

// TestExplainPosition: explain shows a server's leaf group, pod and
// fabric, and nothing of the kind for a switch.
func TestExplainPosition(t *testing.T) {
	dir := t.TempDir()
	src := `name: "t"
topology: {servers: 256, rails: 4, pod: servers: 64,
	leaf: {platform: "sonic", model: "DS5000", downlinks: 32, uplinks: 32},
	spine: {platform: "nvue", model: "SN5600"}, superspine: {platform: "eos", model: "7060X6-64PE"}}
hosts: nic: ports: ["eth1", "eth2", "eth3", "eth4"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
`
	p := filepath.Join(dir, "fabric.cue")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := Run(append([]string{"explain", p}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("explain %v: exit %d\n%s", args, code, stderr.String())
		}
		return stdout.String()
	}
	out := run("gpu-0100")
	says(t, "explain gpu-0100", out,
		"gpu-0100 leaf-group = 32 servers\n",
		"    group = leafgroup-03\n",
		"    leaves = leaf-r0-03,leaf-r1-03,leaf-r2-03,leaf-r3-03\n",
		"    servers = gpu-[0096-0127]\n",
		"gpu-0100 pod = 64 servers\n",
		"    pod = pod-01\n",
		"    groups = leafgroup-[02-03]\n",
		"gpu-0100 fabric = 256 servers\n",
		"  source:  the links of the fabric; slurm/topology.conf SwitchName=leafgroup-03, node label rocefab.io/leaf-group=leafgroup-03\n",
	)
	var vals []explained
	if err := json.Unmarshal([]byte(run("gpu-0100", "pod", "--format", "json")), &vals); err != nil {
		t.Fatal(err)
	}
	if len(vals) != 1 || vals[0].Field != "pod" || vals[0].Inputs["spines"] == "" {
		t.Errorf("explain gpu-0100 pod --format json = %+v", vals)
	}
	if out := run("leaf-r0-00"); strings.Contains(out, "leaf-group") {
		t.Errorf("a switch has a position:\n%s", out)
	}
}
