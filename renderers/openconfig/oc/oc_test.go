package oc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openconfig/ygot/ygot"

	"github.com/rocefab/rocefab/renderers/openconfig/oc"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// roceDevice builds the reference RoCE v2 QoS tree: one 400G Ethernet port
// with MTU 9216; queues and forwarding groups be/roce/cnp; an IPv4 DSCP
// classifier (26 -> roce, 48 -> cnp); a WRED profile that marks ECN; a
// scheduler with cnp strict and roce/be weighted; a buffer allocation profile;
// and the bindings of all of them to the port.
func roceDevice(t *testing.T) *oc.Device {
	t.Helper()
	d := &oc.Device{}

	eth := d.GetOrCreateInterface("Ethernet1")
	eth.SetType(oc.IETFInterfaces_InterfaceType_ethernetCsmacd)
	eth.SetMtu(9216)
	eth.SetEnabled(true)
	eth.GetOrCreateEthernet().SetPortSpeed(oc.IfEthernet_ETHERNET_SPEED_SPEED_400GB)

	q := d.GetOrCreateQos()
	for _, queue := range []struct {
		name string
		id   uint8
	}{{"be", 0}, {"roce", 3}, {"cnp", 6}} {
		q.GetOrCreateQueue(queue.name).SetQueueId(queue.id)
		q.GetOrCreateForwardingGroup(queue.name).SetOutputQueue(queue.name)
	}

	cl := q.GetOrCreateClassifier("dscp-v4")
	cl.SetType(oc.Qos_Classifier_Type_IPV4)
	for _, term := range []struct {
		id   string
		dscp uint8
	}{{"roce", 26}, {"cnp", 48}} {
		tm := cl.GetOrCreateTerm(term.id)
		tm.GetOrCreateConditions().GetOrCreateIpv4().SetDscp(term.dscp)
		tm.GetOrCreateActions().SetTargetGroup(term.id)
	}

	wred := q.GetOrCreateQueueManagementProfile("roce-ecn").GetOrCreateWred().GetOrCreateUniform()
	wred.SetEnableEcn(true)
	wred.SetDrop(false)
	wred.SetMinThreshold(150000)
	wred.SetMaxThreshold(1500000)
	wred.SetMaxDropProbabilityPercent(20)

	sp := q.GetOrCreateSchedulerPolicy("fabric")
	strict := sp.GetOrCreateScheduler(0)
	strict.SetPriority(oc.Scheduler_Priority_STRICT)
	strict.SetType(oc.QosTypes_QOS_SCHEDULER_TYPE_ONE_RATE_TWO_COLOR)
	in := strict.GetOrCreateInput("cnp")
	in.SetInputType(oc.Input_InputType_QUEUE)
	in.SetQueue("cnp")
	wrr := sp.GetOrCreateScheduler(1)
	wrr.SetType(oc.QosTypes_QOS_SCHEDULER_TYPE_ONE_RATE_TWO_COLOR)
	for _, w := range []struct {
		queue  string
		weight uint64
	}{{"roce", 60}, {"be", 40}} {
		in := wrr.GetOrCreateInput(w.queue)
		in.SetInputType(oc.Input_InputType_QUEUE)
		in.SetQueue(w.queue)
		in.SetWeight(w.weight)
	}

	bap := q.GetOrCreateBufferAllocationProfile("lossless")
	roce := bap.GetOrCreateQueue("roce")
	roce.SetDedicatedBuffer(64 << 10)
	roce.SetUseSharedBuffer(true)
	roce.SetSharedBufferLimitType(oc.Qos_SHARED_BUFFER_LIMIT_TYPE_DYNAMIC_BASED_ON_SCALING_FACTOR)
	roce.SetDynamicLimitScalingFactor(-2)
	be := bap.GetOrCreateQueue("be")
	be.SetUseSharedBuffer(true)
	be.SetSharedBufferLimitType(oc.Qos_SHARED_BUFFER_LIMIT_TYPE_STATIC)
	be.SetStaticSharedBufferLimit(1 << 20)

	qi := q.GetOrCreateInterface("Ethernet1")
	qi.GetOrCreateInterfaceRef().SetInterface("Ethernet1")
	qi.GetOrCreateInput().GetOrCreateClassifier(oc.Input_Classifier_Type_IPV4).SetName("dscp-v4")
	out := qi.GetOrCreateOutput()
	out.GetOrCreateSchedulerPolicy().SetName("fabric")
	out.SetBufferAllocationProfile("lossless")
	out.GetOrCreateQueue("roce").SetQueueManagementProfile("roce-ecn")
	return d
}

// emitJSON validates d and returns it as RFC 7951 JSON with module names.
func emitJSON(t *testing.T, d *oc.Device) []byte {
	t.Helper()
	if err := ygot.ValidateGoStruct(d); err != nil {
		t.Fatalf("ValidateGoStruct: %v", err)
	}
	s, err := ygot.EmitJSON(d, &ygot.EmitJSONConfig{
		Format:         ygot.RFC7951,
		Indent:         "  ",
		RFC7951Config:  &ygot.RFC7951JSONConfig{AppendModuleName: true},
		SkipValidation: true, // validated above
	})
	if err != nil {
		t.Fatalf("EmitJSON: %v", err)
	}
	return []byte(s)
}

func TestRoCEQoSTree(t *testing.T) {
	js := emitJSON(t, roceDevice(t))
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatalf("emitted JSON does not parse: %v\n%s", err, js)
	}

	var keys []string
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"openconfig-interfaces:interfaces", "openconfig-qos:qos"}; !slices.Equal(keys, want) {
		t.Errorf("top-level keys = %q, want %q", keys, want)
	}

	const (
		ifc = "openconfig-interfaces:interfaces/interface[name=Ethernet1]"
		qos = "openconfig-qos:qos"
		cl  = qos + "/classifiers/classifier[name=dscp-v4]"
		sp  = qos + "/scheduler-policies/scheduler-policy[name=fabric]/schedulers/scheduler"
		bap = qos + "/buffer-allocation-profiles/buffer-allocation-profile[name=lossless]/queues/queue"
		qi  = qos + "/interfaces/interface[interface-id=Ethernet1]"
	)
	// JSON numbers decode as float64; RFC 7951 carries uint64 as strings.
	for _, tc := range []struct {
		path string
		want any
	}{
		{ifc + "/config/type", "iana-if-type:ethernetCsmacd"},
		{ifc + "/config/mtu", 9216.0},
		{ifc + "/openconfig-if-ethernet:ethernet/config/port-speed", "openconfig-if-ethernet:SPEED_400GB"},
		{qos + "/queues/queue[name=roce]/config/queue-id", 3.0},
		{qos + "/forwarding-groups/forwarding-group[name=cnp]/config/output-queue", "cnp"},
		{cl + "/config/type", "IPV4"},
		{cl + "/terms/term[id=roce]/conditions/ipv4/config/dscp", 26.0},
		{cl + "/terms/term[id=roce]/actions/config/target-group", "roce"},
		{cl + "/terms/term[id=cnp]/conditions/ipv4/config/dscp", 48.0},
		{cl + "/terms/term[id=cnp]/actions/config/target-group", "cnp"},
		{qos + "/queue-management-profiles/queue-management-profile[name=roce-ecn]/wred/uniform/config/enable-ecn", true},
		{qos + "/queue-management-profiles/queue-management-profile[name=roce-ecn]/wred/uniform/config/drop", false},
		{qos + "/queue-management-profiles/queue-management-profile[name=roce-ecn]/wred/uniform/config/min-threshold", "150000"},
		{qos + "/queue-management-profiles/queue-management-profile[name=roce-ecn]/wred/uniform/config/max-threshold", "1500000"},
		{qos + "/queue-management-profiles/queue-management-profile[name=roce-ecn]/wred/uniform/config/max-drop-probability-percent", 20.0},
		{sp + "[sequence=0]/config/priority", "STRICT"},
		{sp + "[sequence=0]/config/type", "openconfig-qos-types:ONE_RATE_TWO_COLOR"},
		{sp + "[sequence=0]/inputs/input[id=cnp]/config/queue", "cnp"},
		{sp + "[sequence=1]/inputs/input[id=roce]/config/input-type", "QUEUE"},
		{sp + "[sequence=1]/inputs/input[id=roce]/config/weight", "60"},
		{sp + "[sequence=1]/inputs/input[id=be]/config/weight", "40"},
		{bap + "[name=roce]/config/dedicated-buffer", "65536"},
		{bap + "[name=roce]/config/shared-buffer-limit-type", "openconfig-qos:DYNAMIC_BASED_ON_SCALING_FACTOR"},
		{bap + "[name=roce]/config/dynamic-limit-scaling-factor", -2.0},
		{bap + "[name=be]/config/shared-buffer-limit-type", "openconfig-qos:STATIC"},
		{bap + "[name=be]/config/static-shared-buffer-limit", 1048576.0},
		{qi + "/interface-ref/config/interface", "Ethernet1"},
		{qi + "/input/classifiers/classifier[type=IPV4]/config/name", "dscp-v4"},
		{qi + "/output/scheduler-policy/config/name", "fabric"},
		{qi + "/output/config/buffer-allocation-profile", "lossless"},
		{qi + "/output/queues/queue[name=roce]/config/queue-management-profile", "roce-ecn"},
	} {
		got, err := lookup(doc, tc.path)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %#v, want %#v", tc.path, got, tc.want)
		}
	}

	// The JSON reads back into an equal tree.
	back := &oc.Device{}
	if err := oc.Unmarshal(js, back); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	n, err := ygot.Diff(roceDevice(t), back)
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if len(n.GetUpdate())+len(n.GetDelete()) != 0 {
		t.Errorf("round trip through JSON changed the tree: %v", n)
	}
}

// TestValidationRejects checks that ValidateGoStruct catches an out-of-range
// DSCP and a dangling leafref, so that the check above is not vacuous.
func TestValidationRejects(t *testing.T) {
	d := roceDevice(t)
	d.Qos.Classifier["dscp-v4"].Term["roce"].Conditions.Ipv4.SetDscp(64)
	if err := ygot.ValidateGoStruct(d); err == nil {
		t.Error("ValidateGoStruct accepted DSCP 64")
	}

	d = roceDevice(t)
	d.Qos.Classifier["dscp-v4"].Term["roce"].Actions.SetTargetGroup("rocev2")
	if err := ygot.ValidateGoStruct(d); err == nil {
		t.Error("ValidateGoStruct accepted a target-group naming no forwarding group")
	}
}

func lookup(doc any, path string) (any, error) { return rendertest.JSONPath(doc, path) }

func repoRoot(t *testing.T) string { return rendertest.RepoRoot(t) }

// sharedDir returns ../shared/<rel> next to the repository root, or skips the
// test when it is not there.
func sharedDir(t *testing.T, rel string) string { return rendertest.Shared(t, rel) }

func lookPath(t *testing.T, name, why string) string { return rendertest.LookPath(t, name, why) }

// TestGeneratedFileIsCurrent regenerates oc.go into a temporary directory with
// gen.sh and fails when the committed file differs.
func TestGeneratedFileIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating oc.go is skipped in -short mode")
	}
	sharedDir(t, "yang/SOURCE.md")
	sh := lookPath(t, "sh", "runs gen.sh")
	gocmd := lookPath(t, "go", "runs the generator")

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	// go tool -n builds the generator if needed and prints its path; it fails
	// when the module cannot be downloaded.
	probe := exec.CommandContext(ctx, gocmd, "tool", "-n", "generator")
	probe.Dir = repoRoot(t)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("ygot generator not available (go tool -n generator): %v\n%s", err, out)
	}

	fresh := filepath.Join(t.TempDir(), "oc.go")
	cmd := exec.CommandContext(ctx, sh, "gen.sh", fresh)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh gen.sh: %v\n%s", err, out)
	}
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("oc.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("oc.go is stale (%d bytes, regenerated %d bytes; first difference at line %d); run: go generate ./renderers/openconfig/oc",
			len(got), len(want), firstDiffLine(got, want))
	}
}

// firstDiffLine returns the 1-based line where a and b first differ.
func firstDiffLine(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return bytes.Count(a[:i], []byte("\n")) + 1
}

// TestYanglintValidator runs the independent validator (yanglint against the
// pinned OpenConfig YANG) on the emitted JSON, and on a copy with one fault to
// show that it rejects what it should.
func TestYanglintValidator(t *testing.T) {
	run := rendertest.OCValidator(t)

	js := emitJSON(t, roceDevice(t))
	dir := t.TempDir()
	good := filepath.Join(dir, "openconfig.json")
	if err := os.WriteFile(good, js, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	faulty := bytes.Replace(js, []byte(`"enable-ecn": true`), []byte(`"enable-ecn": "yes"`), 1)
	if bytes.Equal(faulty, js) {
		t.Fatal(`emitted JSON has no "enable-ecn": true to break`)
	}
	if err := os.WriteFile(bad, faulty, 0o644); err != nil {
		t.Fatal(err)
	}

	if code, out := run(good); code != 0 {
		t.Errorf("oc-validate.sh rejected the emitted JSON (exit %d):\n%s\n%s", code, out, js)
	} else {
		t.Log(strings.TrimSpace(out))
	}
	if code, out := run(bad); code != 1 {
		t.Errorf("oc-validate.sh on a non-boolean enable-ecn: exit %d, want 1:\n%s", code, out)
	}
}
