package openconfig_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

const qos = "openconfig-qos:qos"

// render renders d and checks the artifact's path and format.
func render(t *testing.T, d *ir.Device) []byte {
	t.Helper()
	return rendertest.RenderOne(t, openconfig.Renderer{}, d, openconfig.FileName, renderers.JSON).Content
}

// decode parses rendered JSON.
func decode(t *testing.T, js []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatalf("rendered JSON does not parse: %v\n%s", err, js)
	}
	return doc
}

func TestGolden(t *testing.T) {
	f := irtest.Fabric()
	if len(f.Switches()) != 5 {
		t.Fatalf("irtest fabric has %d switches, want 5", len(f.Switches()))
	}
	for _, d := range f.Switches() {
		t.Run(d.Name, func(t *testing.T) {
			rendertest.Golden(t, filepath.Join("testdata", d.Name, openconfig.FileName), render(t, d))
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, d := range irtest.Fabric().Switches() {
		a := rendertest.Deterministic(t, func() *ir.Device { return irtest.Fabric().Device(d.Name) }, func(d *ir.Device) []byte { return render(t, d) })
		if !bytes.HasSuffix(a, []byte("}\n")) || bytes.HasSuffix(a, []byte("\n\n")) {
			t.Errorf("%s: artifact does not end in exactly one newline", d.Name)
		}
	}
}

// TestLosslessClass follows DSCP 26 through the leaf's tree: classifier term
// -> forwarding group -> queue 3, ECN marking in bytes below the xoff
// point, bound on every port, and the port class's headroom reserved.
func TestLosslessClass(t *testing.T) {
	f := irtest.Fabric()
	for _, d := range f.Switches() {
		t.Run(d.Name, func(t *testing.T) {
			doc := decode(t, render(t, d))
			for _, cl := range []string{"dscp-ipv4", "dscp-ipv6"} {
				fam := strings.TrimPrefix(cl, "dscp-")
				term := fmt.Sprintf("%s/classifiers/classifier[name=%s]/terms/term[id=2-roce]", qos, cl)
				want(t, doc, term+"/conditions/"+fam+"/config/dscp-set", []any{26.0})
				want(t, doc, term+"/actions/config/target-group", "roce")
			}
			want(t, doc, qos+"/forwarding-groups/forwarding-group[name=roce]/config/output-queue", "roce")
			want(t, doc, qos+"/queues/queue[name=roce]/config/queue-id", 3.0)

			wred := qos + "/queue-management-profiles/queue-management-profile[name=ecn-roce]/wred/uniform/config/"
			want(t, doc, wred+"enable-ecn", true)
			want(t, doc, wred+"drop", false)
			// Bytes, as RFC 7951 strings (uint64).
			want(t, doc, wred+"min-threshold", "150000")
			want(t, doc, wred+"max-threshold", "1500000")
			want(t, doc, wred+"max-drop-probability-percent", 20.0)
			minS, _ := lookup(doc, wred+"min-threshold")
			maxS, _ := lookup(doc, wred+"max-threshold")
			var emin, emax int64
			if _, err := fmt.Sscan(fmt.Sprint(minS, " ", maxS), &emin, &emax); err != nil {
				t.Fatalf("ECN thresholds %v, %v: %v", minS, maxS, err)
			}
			if xoff := d.Switch.Buffers.XoffPoint; emin >= emax || emax >= xoff {
				t.Errorf("ECN min %d B, max %d B: want min < max < xoff point %d B", emin, emax, xoff)
			}

			for _, p := range d.Switch.Ports {
				qi := fmt.Sprintf("%s/interfaces/interface[interface-id=%s]", qos, p.Name)
				want(t, doc, qi+"/interface-ref/config/interface", p.Name)
				want(t, doc, qi+"/input/classifiers/classifier[type=IPV4]/config/name", "dscp-ipv4")
				want(t, doc, qi+"/input/classifiers/classifier[type=IPV6]/config/name", "dscp-ipv6")
				want(t, doc, qi+"/output/scheduler-policy/config/name", "fabric")
				want(t, doc, qi+"/output/queues/queue[name=roce]/config/queue-management-profile", "ecn-roce")
				for _, q := range []string{"bulk", "storage", "cnp"} {
					if got, err := lookup(doc, qi+"/output/queues/queue[name="+q+"]/config/queue-management-profile"); err == nil {
						t.Errorf("%s: queue %s has ECN profile %v, want none", p.Name, q, got)
					}
				}
				// PFC headroom has no OpenConfig home: a buffer profile's
				// dedicated-buffer is a queue's guaranteed minimum.
				if got, err := lookup(doc, qi+"/input/config"); err == nil {
					t.Errorf("%s: input binds %v", p.Name, got)
				}
			}
			if got, err := lookup(doc, qos+"/buffer-allocation-profiles"); err == nil {
				t.Errorf("buffer-allocation-profiles rendered: %v", got)
			}
		})
	}
}

// TestClassifierCoversEveryDSCP checks that the terms split 0..63 exactly,
// each term holding what the DSCP map sends to its class, the default last.
func TestClassifierCoversEveryDSCP(t *testing.T) {
	d := irtest.Fabric().Device("leaf-sonic")
	doc := decode(t, render(t, d))
	for _, fam := range []string{"ipv4", "ipv6"} {
		terms, err := lookup(doc, qos+"/classifiers/classifier[name=dscp-"+fam+"]/terms/term")
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]string{}
		var ids, groups []string
		for _, e := range terms.([]any) {
			id := e.(map[string]any)["id"].(string)
			group, err := lookup(e, "actions/config/target-group")
			if err != nil {
				t.Fatal(err)
			}
			set, err := lookup(e, "conditions/"+fam+"/config/dscp-set")
			if err != nil {
				t.Fatalf("term %s: %v", id, err)
			}
			ids, groups = append(ids, id), append(groups, group.(string))
			if len(set.([]any)) == 0 {
				t.Errorf("term %s has an empty dscp-set, which matches every DSCP", id)
			}
			for _, v := range set.([]any) {
				dscp := int(v.(float64))
				if prev, ok := seen[dscp]; ok {
					t.Errorf("DSCP %d in terms %s and %s", dscp, prev, id)
				}
				seen[dscp] = id
				if cl := classOf(d, group.(string)); cl == nil || d.Switch.QoS.DSCPToTC[dscp] != cl.Priority {
					t.Errorf("term %s sends DSCP %d to %s, the DSCP map to traffic class %d", id, dscp, group, d.Switch.QoS.DSCPToTC[dscp])
				}
			}
		}
		if len(seen) != 64 {
			t.Errorf("%s terms cover %d DSCPs, want 64", fam, len(seen))
		}
		if wantIDs := []string{"1-cnp", "2-roce", "3-storage", "4-bulk"}; !slices.Equal(ids, wantIDs) {
			t.Errorf("%s term ids %q, want %q (default class last)", fam, ids, wantIDs)
		}
		if groups[len(groups)-1] != d.Switch.QoS.DefaultClass.Name {
			t.Errorf("%s last term goes to %s, want the default class %s", fam, groups[len(groups)-1], d.Switch.QoS.DefaultClass.Name)
		}
	}
	want(t, doc, qos+"/classifiers/classifier[name=dscp-ipv4]/config/type", "IPV4")
	want(t, doc, qos+"/classifiers/classifier[name=dscp-ipv6]/config/type", "IPV6")
	want(t, doc, qos+"/classifiers/classifier[name=dscp-ipv4]/terms/term[id=1-cnp]/conditions/ipv4/config/dscp-set", []any{48.0})
	want(t, doc, qos+"/classifiers/classifier[name=dscp-ipv4]/terms/term[id=3-storage]/conditions/ipv4/config/dscp-set", []any{10.0, 18.0})
}

func classOf(d *ir.Device, name string) *ir.Class {
	for _, q := range d.Switch.QoS.Queues {
		if q.Class.Name == name {
			return q.Class
		}
	}
	return nil
}

// TestScheduler checks CNP strict at sequence 0 and the ETS weights at 1.
func TestScheduler(t *testing.T) {
	doc := decode(t, render(t, irtest.Fabric().Device("leaf-nxos")))
	sp := qos + "/scheduler-policies/scheduler-policy[name=fabric]/schedulers/scheduler"
	want(t, doc, sp+"[sequence=0]/config/priority", "STRICT")
	want(t, doc, sp+"[sequence=0]/inputs/input[id=cnp]/config/queue", "cnp")
	want(t, doc, sp+"[sequence=0]/inputs/input[id=cnp]/config/input-type", "QUEUE")
	want(t, doc, sp+"[sequence=0]/inputs/input[id=cnp]/config/weight", "6")
	if got, err := lookup(doc, sp+"[sequence=1]/config/priority"); err == nil {
		t.Errorf("WRR scheduler has priority %v, want none", got)
	}
	for q, w := range map[string]string{"roce": "50", "storage": "30", "bulk": "20"} {
		want(t, doc, sp+"[sequence=1]/inputs/input[id="+q+"]/config/queue", q)
		want(t, doc, sp+"[sequence=1]/inputs/input[id="+q+"]/config/weight", w)
		if _, err := lookup(doc, sp+"[sequence=0]/inputs/input[id="+q+"]"); err == nil {
			t.Errorf("%s is in the strict scheduler", q)
		}
	}
	if _, err := lookup(doc, sp+"[sequence=1]/inputs/input[id=cnp]"); err == nil {
		t.Error("cnp is in the WRR scheduler")
	}
	for q, id := range map[string]float64{"bulk": 0, "storage": 1, "roce": 3, "cnp": 6} {
		want(t, doc, qos+"/queues/queue[name="+q+"]/config/queue-id", id)
		want(t, doc, qos+"/forwarding-groups/forwarding-group[name="+q+"]/config/output-queue", q)
	}
}

func TestInterfaces(t *testing.T) {
	for _, d := range irtest.Fabric().Switches() {
		doc := decode(t, render(t, d))
		for _, p := range d.Switch.Ports {
			i := fmt.Sprintf("openconfig-interfaces:interfaces/interface[name=%s]", p.Name)
			want(t, doc, i+"/config/name", p.Name)
			want(t, doc, i+"/config/type", "iana-if-type:ethernetCsmacd")
			mtu := 9216.0
			if d.Platform == ir.PlatformEOS {
				mtu = 9214 // the EOS maximum
			}
			want(t, doc, i+"/config/mtu", mtu)
			if got, err := lookup(doc, i+"/config/enabled"); err == nil {
				t.Errorf("%s: enabled %v: the port's admin state is not rocefab's", p.Name, got)
			}
			want(t, doc, i+"/config/description", "to "+p.Peer+":"+p.PeerPort)
			want(t, doc, i+"/openconfig-if-ethernet:ethernet/config/port-speed", "openconfig-if-ethernet:SPEED_400GB")
			want(t, doc, i+"/openconfig-if-ethernet:ethernet/config/enable-flow-control", false)
		}
		ifs, _ := lookup(doc, "openconfig-interfaces:interfaces/interface")
		qifs, _ := lookup(doc, qos+"/interfaces/interface")
		if n := len(d.Switch.Ports); len(ifs.([]any)) != n || len(qifs.([]any)) != n {
			t.Errorf("%s: %d interfaces, %d QoS interfaces, want %d each", d.Name, len(ifs.([]any)), len(qifs.([]any)), n)
		}
	}
	leaf := decode(t, render(t, irtest.Fabric().Device("leaf-nvue")))
	want(t, leaf, "openconfig-interfaces:interfaces/interface[name=swp33]/config/description", "to spine-00:swp2")
}

func TestSpeeds(t *testing.T) {
	for gbps, id := range map[int]string{100: "SPEED_100GB", 200: "SPEED_200GB", 400: "SPEED_400GB", 800: "SPEED_800GB", 1600: "SPEED_1600GB"} {
		d := irtest.Fabric().Device("leaf-eos")
		d.Switch.Ports[0].SpeedGbps = gbps
		want(t, decode(t, render(t, d)), "openconfig-interfaces:interfaces/interface[name=Ethernet1/1]/openconfig-if-ethernet:ethernet/config/port-speed",
			"openconfig-if-ethernet:"+id)
	}
}

func TestGaps(t *testing.T) {
	f := irtest.Fabric()
	for _, d := range f.Switches() {
		gaps := openconfig.Gaps(d)
		joined := strings.Join(gaps, "\n")
		for _, s := range []string{
			"PFC on priority 3 (roce)",
			"PFC watchdog (detect 200 ms, restore 400 ms, action drop)",
			"traffic class->group 3->3",
			"PFC headroom 205824 B (xoff 187392 B, xon 18432 B) of port class 400G-30m",
			"dedicated-buffer is a queue's guaranteed minimum",
			"shared-buffer reserve of 30% for roce",
			"adaptive load balancing",
			"kept in the native " + d.Platform + " configuration",
		} {
			if !strings.Contains(joined, s) {
				t.Errorf("%s: gaps lack %q:\n%s", d.Name, s, joined)
			}
		}
		hasHostClass := strings.Contains(joined, "port class 400G-3m")
		if isLeaf := d.Role == ir.RoleLeaf; hasHostClass != isLeaf {
			t.Errorf("%s: host-facing port class in gaps = %v, want %v", d.Name, hasHostClass, isLeaf)
		}
		for _, g := range gaps {
			if strings.Contains(g, "\n") {
				t.Errorf("gap spans lines: %q", g)
			}
		}
		if !slices.Equal(gaps, openconfig.Gaps(d)) {
			t.Errorf("%s: Gaps is not stable", d.Name)
		}
	}
	for _, h := range f.Hosts() {
		if g := openconfig.Gaps(h); g != nil {
			t.Errorf("%s: host has gaps %q", h.Name, g)
		}
	}

	// Without lossless classes or adaptive routing nothing is missing.
	d := lossy(irtest.Fabric()).Device("leaf-eos")
	d.Switch.LoadBalancing = "ecmp"
	d.Switch.Buffers.ReservePercent, d.Switch.Buffers.UnheldPercent = 0, 0
	if g := openconfig.Gaps(d); len(g) != 0 {
		t.Errorf("lossy ECMP switch has gaps %q", g)
	}
}

// lossy makes every class of f lossy.
func lossy(f *ir.Fabric) *ir.Fabric {
	q := f.Device("leaf-eos").Switch.QoS
	q.PFC = nil
	q.TCToPG = [8]int{}
	for i := range q.Queues {
		q.Queues[i].Lossless = false
		q.Queues[i].Class.Lossless = false
	}
	return f
}

// variants are fabrics the golden files do not cover; every one must render
// a tree that validates.
func variants() map[string]func() *ir.Device {
	return map[string]func() *ir.Device{
		"two-lossless": func() *ir.Device {
			f := irtest.Fabric()
			q := f.Device("leaf-eos").Switch.QoS
			q.PFC = []int{1, 3}
			q.TCToPG[1] = 1
			for i := range q.Queues {
				if q.Queues[i].Class.Name == "storage" {
					q.Queues[i].Lossless, q.Queues[i].Class.Lossless = true, true
				}
			}
			return f.Device("leaf-eos")
		},
		"lossy": func() *ir.Device { return lossy(irtest.Fabric()).Device("leaf-sonic") },
		"no-strict-no-ecn": func() *ir.Device {
			f := irtest.Fabric()
			q := f.Device("leaf-nvue").Switch.QoS
			for i := range q.Queues {
				q.Queues[i].ECN = nil
				if q.Queues[i].Strict {
					q.Queues[i].Strict, q.Queues[i].Weight = false, 10
				}
			}
			return f.Device("leaf-nvue")
		},
		"all-strict": func() *ir.Device {
			f := irtest.Fabric()
			q := f.Device("spine-00").Switch.QoS
			for i := range q.Queues {
				q.Queues[i].Strict, q.Queues[i].Weight = true, 0
			}
			return f.Device("spine-00")
		},
	}
}

func TestVariants(t *testing.T) {
	v := variants()
	doc := decode(t, render(t, v["two-lossless"]()))
	if g := strings.Join(openconfig.Gaps(v["two-lossless"]()), "\n"); !strings.Contains(g, "PFC on priority 1 (storage), 3 (roce)") {
		t.Errorf("gaps lack both lossless priorities:\n%s", g)
	}

	doc = decode(t, render(t, v["lossy"]()))
	if got, err := lookup(doc, qos+"/buffer-allocation-profiles"); err == nil {
		t.Errorf("lossy switch has buffer profiles: %v", got)
	}
	if got, err := lookup(doc, qos+"/interfaces/interface[interface-id=Ethernet0]/input/config"); err == nil {
		t.Errorf("lossy switch binds a buffer profile: %v", got)
	}

	doc = decode(t, render(t, v["no-strict-no-ecn"]()))
	sp := qos + "/scheduler-policies/scheduler-policy[name=fabric]/schedulers/scheduler"
	if _, err := lookup(doc, sp+"[sequence=0]"); err == nil {
		t.Error("a strict scheduler without strict classes")
	}
	want(t, doc, sp+"[sequence=1]/inputs/input[id=cnp]/config/weight", "10")
	if _, err := lookup(doc, qos+"/queue-management-profiles"); err == nil {
		t.Error("queue-management profiles without ECN")
	}

	doc = decode(t, render(t, v["all-strict"]()))
	want(t, doc, sp+"[sequence=0]/inputs/input[id=bulk]/config/weight", "0")
	want(t, doc, sp+"[sequence=0]/inputs/input[id=cnp]/config/weight", "6")
	if _, err := lookup(doc, sp+"[sequence=1]"); err == nil {
		t.Error("a WRR scheduler without WRR classes")
	}
}

// TestUnsafeNames checks that a name that could break out of a value in a
// native configuration is refused here too.
func TestUnsafeNames(t *testing.T) {
	leaf := func() *ir.Device { return irtest.Fabric().Device("leaf-eos") }
	names := rendertest.SwitchNames(0, 2)
	rendertest.RefusesNames(t, openconfig.Renderer{}, leaf, []string{"a\nb", "a;b", "a$(id)", "a`id`", `a"b`, "a'b", "a b"}, names)
	// An unconnected port has no peer, so only the other names may not be
	// empty.
	delete(names, "peer")
	delete(names, "peer port")
	rendertest.RefusesNames(t, openconfig.Renderer{}, leaf, []string{""}, names)
}

func TestRefused(t *testing.T) {
	for name, mk := range map[string]func() *ir.Device{
		"nil":  func() *ir.Device { return nil },
		"host": func() *ir.Device { return irtest.Fabric().Device("gpu-0000") },
		"host role with switch": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Role = ir.RoleHost
			return d
		},
		"unknown platform": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Platform = "junos"
			return d
		},
		"no QoS": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.QoS = nil
			return d
		},
		"MTU too large": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.MTU = 70000
			return d
		},
		"speed without OpenConfig identity": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.Ports[1].SpeedGbps = 300
			return d
		},
		"DSCP to a traffic class without queue": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.QoS.DSCPToTC[7] = 5
			return d
		},
		"class DSCP disagrees with map": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.QoS.DSCPToTC[26] = 0
			return d
		},
		"negative ECN": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.QoS.Queues[2].ECN.MinBytes = -1
			return d
		},
		"ECN probability above 100": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.QoS.Queues[2].ECN.Probability = 101
			return d
		},
		"duplicate port": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.Ports[1].Name = d.Switch.Ports[0].Name
			return d
		},
		"queue out of range": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.QoS.Queues[0].ID = 8
			return d
		},
		"no queues": func() *ir.Device {
			d := irtest.Fabric().Device("leaf-eos")
			d.Switch.QoS.Queues = nil
			return d
		},
	} {
		if arts, err := (openconfig.Renderer{}).Render(mk()); err == nil {
			t.Errorf("%s: rendered %d artifacts, want an error", name, len(arts))
		} else {
			t.Logf("%s: %v", name, err)
		}
		// Names refuses what Render refuses before it builds the tree:
		// every case here.
		if names, err := (openconfig.Renderer{}).Names(mk()); err == nil {
			t.Errorf("%s: Names gave %v, want an error", name, names)
		}
	}
}

// TestNamesIsWhatRenderWrites: for every switch and variant, Names gives
// the paths of Render's artifacts, so that SUMMARY.md, which names files
// with it, lists what a build writes.
func TestNamesIsWhatRenderWrites(t *testing.T) {
	devs := irtest.Fabric().Switches()
	for _, mk := range variants() {
		devs = append(devs, mk())
	}
	for _, d := range devs {
		arts, err := openconfig.Renderer{}.Render(d)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		var paths []string
		for _, a := range arts {
			paths = append(paths, a.Path)
		}
		names, err := openconfig.Renderer{}.Names(d)
		if err != nil || !slices.Equal(names, paths) {
			t.Errorf("%s: Names = %v, %v; Render wrote %v", d.Name, names, err, paths)
		}
	}
	if _, err := (openconfig.Renderer{}).Names(irtest.Fabric().Device("gpu-0000")); err == nil {
		t.Error("Names of a server: no error")
	}
}

// FuzzRender varies the numbers the renderer converts to unsigned and
// ranged types: it must fail or render, never panic.
func FuzzRender(f *testing.F) {
	f.Add(9216, 400, int64(150000), int64(1500000), 20, 26, 50, int64(178176), 3)
	f.Add(-1, 0, int64(-1), int64(0), -5, 64, -1, int64(-1), 9)
	f.Fuzz(func(t *testing.T, mtu, speed int, emin, emax int64, prob, dscp, weight int, headroom int64, tc int) {
		d := irtest.Fabric().Device("leaf-eos")
		s := d.Switch
		s.MTU = mtu
		s.Ports[0].SpeedGbps = speed
		q := &s.QoS.Queues[2]
		q.ECN.MinBytes, q.ECN.MaxBytes, q.ECN.Probability = emin, emax, prob
		s.QoS.Queues[1].Weight = weight
		s.Ports[0].Headroom.Size = headroom
		if dscp >= 0 && dscp < 64 {
			s.QoS.DSCPToTC[dscp] = tc
		}
		arts, err := openconfig.Renderer{}.Render(d)
		if err == nil && (len(arts) != 1 || !json.Valid(arts[0].Content)) {
			t.Fatalf("rendered %d artifacts without error, first not JSON", len(arts))
		}
		_ = openconfig.Gaps(d)
	})
}

// want checks the value at path in a decoded document. JSON numbers decode
// as float64; uint64 leaves are strings in RFC 7951.
func want(t *testing.T, doc any, path string, v any) {
	t.Helper()
	got, err := lookup(doc, path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if g, w := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", v); g != w {
		t.Errorf("%s = %s, want %s", path, g, w)
	}
}

func lookup(doc any, path string) (any, error) { return rendertest.JSONPath(doc, path) }

// TestOwned checks that the artifact holds exactly what rocefab owns: under
// /interfaces only the owned leaves of each port (plus the name and type
// that identify it), nothing the owned list would not update, and /qos
// whole.
func TestOwned(t *testing.T) {
	if openconfig.Owned[0] != (openconfig.OwnedPath{Path: "/qos", Op: openconfig.Replace}) {
		t.Errorf("first owned path %v, want a replace of /qos", openconfig.Owned[0])
	}
	for _, o := range openconfig.Owned {
		if o.Op == openconfig.Replace && strings.HasPrefix(o.Path, "/interfaces") {
			t.Errorf("%s is replaced: a replace under /interfaces deletes what the artifact omits", o.Path)
		}
	}
	d := irtest.Fabric().Device("leaf-eos")
	doc := decode(t, render(t, d))
	allowed := map[string]bool{"name": true}
	for _, o := range openconfig.Owned {
		if o.Op == openconfig.Update {
			allowed[strings.TrimPrefix(o.Path, "/interfaces/interface[name=*]/")] = true
		}
	}
	allowed["config/name"], allowed["config/type"] = true, true
	ifs, err := lookup(doc, "openconfig-interfaces:interfaces/interface")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ifs.([]any) {
		for _, leaf := range leaves(i.(map[string]any), "") {
			if !allowed[strings.ReplaceAll(leaf, "openconfig-if-ethernet:", "")] {
				t.Errorf("interface leaf %s is in the artifact but not owned", leaf)
			}
		}
	}
	paths := openconfig.OwnedPaths(d)
	if want := 1 + 4*len(d.Switch.Ports); len(paths) != want {
		t.Errorf("%d owned paths, want %d", len(paths), want)
	}
	if !slices.Contains(paths, openconfig.OwnedPath{Path: "/interfaces/interface[name=Ethernet1/1]/config/mtu", Op: openconfig.Update}) {
		t.Errorf("no MTU update for Ethernet1/1 in %v", paths)
	}
}

// leaves lists the leaf paths below m, slash-separated.
func leaves(m map[string]any, prefix string) []string {
	var out []string
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			out = append(out, leaves(sub, prefix+k+"/")...)
			continue
		}
		out = append(out, prefix+k)
	}
	return out
}
