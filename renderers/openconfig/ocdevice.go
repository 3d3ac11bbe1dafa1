package openconfig

// This is the one file that knows the ygot-generated types. Their names
// depend on the YANG module set the generator saw (openconfig.md, section
// 2.5, pitfall 5), so they stay here, behind emit.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/openconfig/goyang/pkg/yang"
	"github.com/openconfig/ygot/ygot"

	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig/oc"
)

// emit returns the OpenConfig tree of c as RFC 7951 JSON with
// module-qualified names, two-space indent and a final newline. uint64
// leaves (thresholds, weights, buffer sizes) come out as JSON strings, as
// RFC 7951 section 6.1 requires.
//
// The tree is not validated against the schema compiled into the generated
// code here: loading that schema alone took longer than the rest of a
// 1,024-GPU build's OpenConfig. Every value reaches the tree through plan,
// which refuses what the schema would (types, ranges, names), and the tests
// hold it to that: FuzzPlanChecksWhatTheSchemaChecks validates with ygot,
// leafrefs included, every tree plan accepts, TestShapesValidateWithLeafrefs
// every shape of the test fabric, and yanglint every example's artifact.
//
// Building and emitting a ygot tree costs tens of milliseconds for a
// 128-port switch, and a large fabric has thousands of switches that
// differ only in their port descriptions (the peers). So the tree is built
// and emitted once per shape (everything but the descriptions)
// with a unique placeholder in each description, and every switch of that
// shape gets the same bytes with its own descriptions put in. The result is
// byte-for-byte what ygot emits for the switch itself (a test checks it).
//
// compact drops the indentation (and every other insignificant space).
func emit(c *config, compact bool) ([]byte, error) { return emitInto(nil, c, compact) }

// emitInto is emit appending to dst.
func emitInto(dst []byte, c *config, compact bool) ([]byte, error) {
	key := strconv.FormatBool(compact) + "|" + shape(c)
	e, ok := templates.Load(key)
	if !ok {
		e, _ = templates.LoadOrStore(key, &templateOnce{})
	}
	once := e.(*templateOnce)
	// Workers that meet a new shape together wait for one of them to make
	// its template, rather than each making its own.
	once.Do(func() { once.t, once.err = makeTemplate(c, compact) })
	if once.err != nil {
		return nil, once.err
	}
	return once.t.fill(dst, c), nil
}

// compactJSON removes js's insignificant white space, keeping the final
// newline of a text file.
func compactJSON(js []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(js) / 2)
	if err := json.Compact(&b, js); err != nil {
		return nil, fmt.Errorf("internal error: compacting OpenConfig JSON: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// templateOnce makes one shape's template once per process.
type templateOnce struct {
	sync.Once
	t   *template
	err error
}

// emitYgot builds and emits c through the generated types.
func emitYgot(c *config) ([]byte, error) {
	d, err := build(c)
	if err != nil {
		return nil, err
	}
	js, err := ygot.EmitJSON(d, &ygot.EmitJSONConfig{
		Format:        ygot.RFC7951,
		Indent:        "  ",
		RFC7951Config: &ygot.RFC7951JSONConfig{AppendModuleName: true},
		// plan checked every value (emit says how that is tested);
		// validating would load the whole schema.
		SkipValidation: true,
	})
	if err != nil {
		return nil, fmt.Errorf("emitting OpenConfig JSON: %w", err)
	}
	return []byte(js + "\n"), nil
}

// templates holds one *templateOnce per shape seen in this process.
var templates sync.Map

// template is the emitted JSON of one shape, cut at its descriptions.
type template struct {
	parts []string // len(ports)+1 pieces of JSON between the descriptions
	ports []int    // which port's description follows parts[i]
}

// placeholder is a description no model can produce: names cannot hold '@'.
func placeholder(i int) string { return fmt.Sprintf("@rocefab-description-%d@", i) }

func makeTemplate(c *config, compact bool) (*template, error) {
	marked := *c
	marked.ports = slices.Clone(c.ports)
	for i := range marked.ports {
		if marked.ports[i].description != "" {
			marked.ports[i].description = placeholder(i)
		}
	}
	js, err := emitYgot(&marked)
	if err != nil {
		return nil, err
	}
	if compact {
		// The placeholders are inside strings, which compacting keeps.
		if js, err = compactJSON(js); err != nil {
			return nil, err
		}
	}
	t := &template{}
	rest := string(js)
	for {
		at := strings.Index(rest, "@rocefab-description-")
		if at < 0 {
			break
		}
		end := strings.IndexByte(rest[at+1:], '@')
		var i int
		if end < 0 {
			return nil, fmt.Errorf("internal error: unterminated description placeholder")
		}
		if _, err := fmt.Sscanf(rest[at:at+end+2], "@rocefab-description-%d@", &i); err != nil || i < 0 || i >= len(c.ports) {
			return nil, fmt.Errorf("internal error: bad description placeholder %q", rest[at:at+end+2])
		}
		t.parts = append(t.parts, rest[:at])
		t.ports = append(t.ports, i)
		rest = rest[at+end+2:]
	}
	t.parts = append(t.parts, rest)
	return t, nil
}

// fill puts c's descriptions into the template. Descriptions are
// "to <peer>:<port>" of checked names, so they need no JSON escaping; a
// description that would is encoded all the same.
func (t *template) fill(b []byte, c *config) []byte {
	n := 0
	for _, p := range t.parts {
		n += len(p)
	}
	b = slices.Grow(b, n+len(t.ports)*48)
	for i, p := range t.parts {
		b = append(b, p...)
		if i < len(t.ports) {
			b = appendJSONString(b, c.ports[t.ports[i]].description)
		}
	}
	return b
}

// appendJSONString appends s's characters as encoding/json writes them
// inside a string: what renderers.AppendJSONString writes, without the
// quotes, which the template has.
func appendJSONString(b []byte, s string) []byte {
	n := len(b)
	b = renderers.AppendJSONString(b, s, true)
	copy(b[n:], b[n+1:len(b)-1])
	return b[:len(b)-2]
}

// shape is everything of c but the port descriptions (and whether a port
// has one): two configs of one shape emit the same JSON but for those.
func shape(c *config) string {
	// Every switch computes its shape, so the per-port part, the bulk of
	// it, is appended without fmt; it reads as "%s|%d|%d|%t;" per port.
	b := make([]byte, 0, 32*len(c.ports)+256)
	for _, p := range c.ports {
		b = append(b, p.name...)
		b = append(b, '|')
		b = strconv.AppendUint(b, uint64(p.mtu), 10)
		b = append(b, '|')
		b = strconv.AppendInt(b, int64(p.speedGbps), 10)
		b = append(b, '|')
		b = strconv.AppendBool(b, p.description != "")
		b = append(b, ';')
	}
	b = fmt.Appendf(b, "%v%v%v%v%v%v", c.queues, c.terms, c.strict, c.wrr, c.ecn, c.lossless)
	return string(b)
}

// hasPortSpeed reports whether OpenConfig has a port-speed identity for a
// port of gbps Gbit/s.
func hasPortSpeed(gbps int) bool {
	_, ok := speeds[gbps]
	return ok
}

// speeds maps port speeds in Gbit/s to openconfig-if-ethernet identities.
var speeds = map[int]oc.E_IfEthernet_ETHERNET_SPEED{
	10:   oc.IfEthernet_ETHERNET_SPEED_SPEED_10GB,
	25:   oc.IfEthernet_ETHERNET_SPEED_SPEED_25GB,
	40:   oc.IfEthernet_ETHERNET_SPEED_SPEED_40GB,
	50:   oc.IfEthernet_ETHERNET_SPEED_SPEED_50GB,
	100:  oc.IfEthernet_ETHERNET_SPEED_SPEED_100GB,
	200:  oc.IfEthernet_ETHERNET_SPEED_SPEED_200GB,
	400:  oc.IfEthernet_ETHERNET_SPEED_SPEED_400GB,
	600:  oc.IfEthernet_ETHERNET_SPEED_SPEED_600GB,
	800:  oc.IfEthernet_ETHERNET_SPEED_SPEED_800GB,
	1600: oc.IfEthernet_ETHERNET_SPEED_SPEED_1600GB,
}

// build maps c onto the generated types, one-to-one.
func build(c *config) (*oc.Device, error) {
	d := &oc.Device{}
	q := d.GetOrCreateQos()

	for _, qu := range c.queues {
		q.GetOrCreateQueue(qu.name).SetQueueId(qu.id)
		q.GetOrCreateForwardingGroup(qu.name).SetOutputQueue(qu.name)
	}

	for _, cl := range []struct {
		name string
		typ  oc.E_Qos_Classifier_Type
		v6   bool
	}{{classifierIPv4, oc.Qos_Classifier_Type_IPV4, false}, {classifierIPv6, oc.Qos_Classifier_Type_IPV6, true}} {
		oclass := q.GetOrCreateClassifier(cl.name)
		oclass.SetType(cl.typ)
		for _, t := range c.terms {
			ot := oclass.GetOrCreateTerm(t.id)
			// dscp-set, not dscp: one leaf for one value or many.
			if cl.v6 {
				ot.GetOrCreateConditions().GetOrCreateIpv6().SetDscpSet(t.dscp)
			} else {
				ot.GetOrCreateConditions().GetOrCreateIpv4().SetDscpSet(t.dscp)
			}
			ot.GetOrCreateActions().SetTargetGroup(t.group)
		}
	}

	sp := q.GetOrCreateSchedulerPolicy(schedulerPolicy)
	if len(c.strict) > 0 {
		s := sp.GetOrCreateScheduler(strictSequence)
		s.SetPriority(oc.Scheduler_Priority_STRICT)
		addInputs(s, c.strict)
	}
	if len(c.wrr) > 0 {
		// No priority: the model has no WRR identity, an unset priority
		// with weighted inputs is weighted round-robin.
		addInputs(sp.GetOrCreateScheduler(wrrSequence), c.wrr)
	}

	for _, w := range c.ecn {
		u := q.GetOrCreateQueueManagementProfile(w.name).GetOrCreateWred().GetOrCreateUniform()
		u.SetEnableEcn(true)
		u.SetDrop(false) // mark, never drop: a lossless queue leaves non-ECT packets to PFC
		u.SetMinThreshold(w.min)
		u.SetMaxThreshold(w.max)
		u.SetMaxDropProbabilityPercent(w.probability)
	}

	for _, p := range c.ports {
		speed, ok := speeds[p.speedGbps]
		if !ok {
			return nil, fmt.Errorf("port %s: speed %d Gbit/s has no OpenConfig port-speed", p.name, p.speedGbps)
		}
		i := d.GetOrCreateInterface(p.name)
		i.SetType(oc.IETFInterfaces_InterfaceType_ethernetCsmacd)
		i.SetMtu(p.mtu)
		if p.description != "" {
			i.SetDescription(p.description)
		}
		e := i.GetOrCreateEthernet()
		e.SetPortSpeed(speed)
		// 802.3x PAUSE stops every priority; with PFC it must be off.
		e.SetEnableFlowControl(false)

		qi := q.GetOrCreateInterface(p.name)
		qi.GetOrCreateInterfaceRef().SetInterface(p.name)
		in := qi.GetOrCreateInput()
		in.GetOrCreateClassifier(oc.Input_Classifier_Type_IPV4).SetName(classifierIPv4)
		in.GetOrCreateClassifier(oc.Input_Classifier_Type_IPV6).SetName(classifierIPv6)
		out := qi.GetOrCreateOutput()
		out.GetOrCreateSchedulerPolicy().SetName(schedulerPolicy)
		for _, qu := range c.queues {
			oq := out.GetOrCreateQueue(qu.name)
			if qu.ecnProfile != "" {
				oq.SetQueueManagementProfile(qu.ecnProfile)
			}
		}
	}
	return d, nil
}

func addInputs(s *oc.Qos_SchedulerPolicy_Scheduler, ins []input) {
	for _, in := range ins {
		i := s.GetOrCreateInput(in.queue)
		i.SetInputType(oc.Input_InputType_QUEUE)
		i.SetQueue(in.queue)
		i.SetWeight(in.weight)
	}
}

// generatedSchema gives the schema index (schema.go) what it reads of the
// generated code: the root struct type, whose field tags name each path
// element's module, the root's schema entry, and every identity's name
// and defining module (for RFC 7951's qualified identity values).
func generatedSchema() (reflect.Type, *yang.Entry, map[string][][2]string) {
	enums := map[string][][2]string{}
	for typ, vals := range oc.ΛEnum {
		for _, v := range vals {
			enums[typ] = append(enums[typ], [2]string{v.Name, v.DefiningModule})
		}
	}
	return reflect.TypeFor[oc.Device](), oc.SchemaTree()["Device"], enums
}
