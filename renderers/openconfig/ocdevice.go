package openconfig

// This is the one file that knows the ygot-generated types. Their names
// depend on the YANG module set the generator saw (openconfig.md, section
// 2.5, pitfall 5), so they stay here, behind emit.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/openconfig/ygot/ygot"

	"github.com/rocefab/rocefab/renderers/openconfig/oc"
)

// emit builds the OpenConfig tree of c, validates it against the schema
// compiled into the generated code (types, ranges, leafrefs) and returns it
// as RFC 7951 JSON with module-qualified names, two-space indent and a final
// newline. uint64 leaves (thresholds, weights, buffer sizes) come out as JSON
// strings, as RFC 7951 section 6.1 requires.
func emit(c *config) ([]byte, error) {
	d, err := build(c)
	if err != nil {
		return nil, err
	}
	if err := validate(c, d); err != nil {
		return nil, fmt.Errorf("OpenConfig tree does not validate: %w", err)
	}
	js, err := ygot.EmitJSON(d, &ygot.EmitJSONConfig{
		Format:         ygot.RFC7951,
		Indent:         "  ",
		RFC7951Config:  &ygot.RFC7951JSONConfig{AppendModuleName: true},
		SkipValidation: true, // validated above, with the error wrapped
	})
	if err != nil {
		return nil, fmt.Errorf("emitting OpenConfig JSON: %w", err)
	}
	return []byte(js + "\n"), nil
}

// checkedShapes holds the shapes (see shape) whose trees passed full
// validation in this process.
var checkedShapes sync.Map

// shape is everything of c that a leafref can point at or from: port names
// and bindings, queues, classifier terms, scheduler inputs and profiles.
// Only descriptions are left out, and they are free strings.
func shape(c *config) string {
	var b strings.Builder
	for _, p := range c.ports {
		fmt.Fprintf(&b, "%s|%d|%d|%s;", p.name, p.mtu, p.speedGbps, p.bufferProfile)
	}
	fmt.Fprintf(&b, "%v%v%v%v%v%v%v", c.queues, c.terms, c.strict, c.wrr, c.ecn, c.buffers, c.lossless)
	return b.String()
}

// validate checks d against the schema. Leafref resolution walks the whole
// tree for every reference (most of a 128-port switch's render time), and
// its result depends only on the tree's shape, so it runs once per shape;
// every tree still gets the type and range checks of its subtrees.
func validate(c *config, d *oc.Device) error {
	key := shape(c)
	if _, ok := checkedShapes.Load(key); !ok {
		if err := ygot.ValidateGoStruct(d); err != nil {
			return err
		}
		checkedShapes.Store(key, true)
		return nil
	}
	if d.Qos != nil {
		if err := d.Qos.ΛValidate(); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.Interface)) {
		if err := d.Interface[name].ΛValidate(); err != nil {
			return err
		}
	}
	return nil
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

	for _, b := range c.buffers {
		bp := q.GetOrCreateBufferAllocationProfile(b.name)
		for _, name := range b.queues {
			bq := bp.GetOrCreateQueue(name)
			bq.SetDedicatedBuffer(b.dedicated)
			bq.SetUseSharedBuffer(true)
			bq.SetSharedBufferLimitType(oc.Qos_SHARED_BUFFER_LIMIT_TYPE_DYNAMIC_BASED_ON_SCALING_FACTOR)
		}
	}

	for _, p := range c.ports {
		speed, ok := speeds[p.speedGbps]
		if !ok {
			return nil, fmt.Errorf("port %s: speed %d Gbit/s has no OpenConfig port-speed", p.name, p.speedGbps)
		}
		i := d.GetOrCreateInterface(p.name)
		i.SetType(oc.IETFInterfaces_InterfaceType_ethernetCsmacd)
		i.SetMtu(p.mtu)
		i.SetEnabled(true)
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
		if p.bufferProfile != "" {
			in.SetBufferAllocationProfile(p.bufferProfile)
		}
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
