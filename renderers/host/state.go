package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// The host platform of plan and apply: a server's desired state is the
// settings its runtime checks, each as the runtime's --check --json
// reports it ([Renderer.Desired]); its running state is that report, kept
// as <server>/host-state.json ([Renderer.Parse]); a remediation is the
// host.conf to install and the runtime sections to run, with the settings
// they write ([Renderer.Diff]). docs/ownership.md describes the scope.
var (
	_ renderers.Platform = Renderer{}
	_ renderers.Applier  = Renderer{}
)

// StateFile is the running state of a server: what `rocefab-host.sh
// --check --json` prints, kept below the server's directory.
const StateFile = "host-state.json"

// State is a server's settings within the owned scope, and, read from a
// server, the settings its runtime cannot take there (per-priority ECN
// enable on the inbox mlx5 driver, a firmware setting): a diff leaves
// those alone rather than asking for what the server cannot do.
type State struct {
	es        []renderers.Element
	unmanaged map[string]string // path -> why
}

// Elements returns the settings sorted by path.
func (s *State) Elements() []renderers.Element { return slices.Clone(s.es) }

// Unmanaged returns the paths the server reported it cannot set, sorted.
func (s *State) Unmanaged() []string {
	out := make([]string, 0, len(s.unmanaged))
	for p := range s.unmanaged {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func newState(es []renderers.Element, unmanaged map[string]string) *State {
	slices.SortFunc(es, func(a, b renderers.Element) int { return strings.Compare(a.Path, b.Path) })
	return &State{es: es, unmanaged: unmanaged}
}

// The catalog elements (ir.Element*) the settings realise; the
// catalog says what changing each disrupts on linux (a PFC write flaps
// the link, the cable length and the MTU resize the receive buffers).
const (
	kindDSCPMap = ir.ElementDSCPMap
	kindETS     = ir.ElementETS
	kindPFC     = ir.ElementPFC
	kindCable   = ir.ElementHeadroomCable
	kindECN     = ir.ElementECN
	kindShaping = ir.ElementShaping
	kindMTU     = ir.ElementMTU
)

// kindOf names the catalog element of a setting path, and section the
// runtime section that writes it.
func kindOf(p string) (kind, section string) {
	_, rest, _ := strings.Cut(p, "/")
	head, _, _ := strings.Cut(rest, "/")
	k := settingKinds[head]
	return k.kind, k.section
}

// settingKinds are kindOf's answers by the first name of a setting path
// after the device, grouped by section.
var settingKinds = map[string]struct{ kind, section string }{
	"mtu":  {kindMTU, "mtu"},
	"dcbx": {kindDSCPMap, "qos"}, "trust": {kindDSCPMap, "qos"}, "dscp2prio": {kindDSCPMap, "qos"},
	"ets": {kindETS, "qos"}, "maxrate": {kindShaping, "qos"}, "cable_len": {kindCable, "qos"},
	"ecn": {kindECN, "ecn"}, "dcqcn": {kindECN, "ecn"}, "cc": {kindECN, "ecn"},
	"tos":     {kindDSCPMap, "tos"},
	"shaping": {kindShaping, "shaping"},
	"pfc":     {kindPFC, "pfc"},
}

// sectionOrder is the order the runtime runs its sections in.
var sectionOrder = []string{"mtu", "qos", "ecn", "tos", "shaping", "pfc"}

// Desired returns d's settings as the runtime reports them: per RDMA
// netdev its MTU, DCBX mode, trust (mlnx_qos), dscp2prio, ETS, rate
// limits, cable length, ECN and DCQCN knobs and PFC vector; per HCA its
// rdma_cm ToS; per shaped interface its HTB root, classes and filters.
// Each value comes from the settings host.conf prints (settingsOf).
func (Renderer) Desired(d *ir.Device) (renderers.State, error) {
	if err := checkServer(d); err != nil {
		return nil, err
	}
	return newState(desiredElements(settingsOf(d)), nil), nil
}

// desiredElements are the settings s as the runtime reports what it
// wants of them.
func desiredElements(s *settings) []renderers.Element {
	var es []renderers.Element
	add := func(path, value string) {
		k, _ := kindOf(path)
		es = append(es, renderers.Element{Path: path, Value: value, Kind: k})
	}
	want := make([]string, 64)
	for i, v := range s.dscp2prio {
		want[i] = strconv.Itoa(v)
	}
	dscp := dscpRuns(want)
	ets := s.etsValue()
	pfc := renderers.JoinInts(s.pfc, ",")
	tos := map[string]bool{}
	for i, port := range s.netdevs {
		dev := port + "/"
		add(dev+"mtu", strconv.Itoa(s.mtu))
		add(dev+"dcbx", "host")
		if s.tool == "mlnx_qos" {
			add(dev+"trust", s.trust)
		}
		add(dev+"dscp2prio", dscp)
		add(dev+"ets", ets)
		add(dev+"maxrate", renderers.JoinInts(int64s(s.maxrate[i][:]), ","))
		if s.cableLen > 0 {
			add(dev+"cable_len", strconv.Itoa(s.cableLen))
		}
		// The runtime names the ToS and a driver's congestion-control
		// knobs by the HCA the settings give, or by the netdev when the
		// HCA is found at run time (hca_path).
		t := s.hcas[i]
		if t == "" {
			t = port
		}
		for _, k := range s.cc {
			add(t+"/cc/"+k.Name, k.Value)
		}
		if len(s.cc) == 0 {
			for prio, on := range s.ecn {
				add(fmt.Sprintf("%secn/rp/%d", dev, prio), strconv.Itoa(on))
				add(fmt.Sprintf("%secn/np/%d", dev, prio), strconv.Itoa(on))
			}
			if s.cnpDSCP >= 0 {
				add(dev+"ecn/cnp_dscp", strconv.Itoa(s.cnpDSCP))
				add(dev+"ecn/cnp_prio", strconv.Itoa(s.cnpPrio))
			}
			for _, prm := range s.dcqcn {
				add(dev+"dcqcn/"+prm.Name, strconv.Itoa(prm.Value))
			}
		}
		if !tos[t] {
			tos[t] = true
			add(t+"/tos", strconv.Itoa(s.tos))
		}
		add(dev+"pfc", pfc)
	}
	for _, si := range s.shaping {
		dev := si.name + "/shaping/"
		add(dev+"qdisc", fmt.Sprintf("htb 1: default 0x%x", si.deflt))
		for _, c := range si.classes {
			f := strings.Fields(c)
			bits, _ := strconv.ParseInt(f[1], 10, 64)
			r := tcRateText(bits / 8)
			add(dev+"class/"+f[0], fmt.Sprintf("root %s %s %d", r, r, htbQuantum))
		}
		add(dev+"class/"+classID(restMinor), fmt.Sprintf("root line-rate line-rate %d", htbQuantum))
		var filters []string
		for _, rec := range si.filters {
			var proto, cid string
			var dscp int
			if _, err := fmt.Sscanf(rec, "%s %d %s", &proto, &dscp, &cid); err == nil {
				filters = append(filters, u32Filter(proto, dscp, cid))
			}
		}
		slices.Sort(filters)
		if len(filters) == 0 {
			add(dev+"filters", "none")
		} else {
			add(dev+"filters", strings.Join(filters, "; "))
		}
	}
	return es
}

func int64s(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// scope is what rocefab owns on a server: the settings of the intent's
// RDMA netdevs, of their HCAs and of its shaped interfaces. A report of
// another interface (a NIC the intent no longer lists) is not read.
type scope map[string]bool

func scopeOf(d *ir.Device) scope {
	s := scope{}
	for _, n := range d.Host.NICs {
		s[n.Port] = true
		if n.HCA != "" {
			s[n.HCA] = true
		}
	}
	for _, si := range shapingPlan(d.Host.Profile) {
		s[si.name] = true
	}
	return s
}

func (s scope) owns(p string) bool {
	head, _, ok := strings.Cut(p, "/")
	k, _ := kindOf(p)
	return ok && s[head] && k != ""
}

// stateDoc is the runtime's --check --json document.
type stateDoc struct {
	Device    string         `json:"device"`
	Runtime   string         `json:"runtime"`
	Tool      string         `json:"tool"`
	Settings  []stateSetting `json:"settings"`
	Unmanaged []unmanagedDoc `json:"unmanaged"`
	Notes     []string       `json:"notes"`
	Errors    []string       `json:"errors"`
}

type stateSetting struct {
	Path string  `json:"path"`
	Have *string `json:"have"`
	Want *string `json:"want"`
}

type unmanagedDoc struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// maxPath bounds a setting path: an interface or HCA name (64 bytes) and
// what follows it.
const maxPath = 256

func decodeState(name string, src []byte) (*stateDoc, error) {
	if doc, ok := readState(src); ok {
		return doc, nil
	}
	var doc stateDoc
	dec := json.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not a host state (rocefab-host.sh --check --json): %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON document", name)
	}
	return &doc, nil
}

// Parse reads d's running state from <server>/host-state.json, the
// runtime's --check --json report: each setting's have within the scope
// (want is what the server's installed settings say, not the intent, and
// is not read). A server without the file runs nothing yet; a report with
// errors is refused with them, since its settings are incomplete.
func (Renderer) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	if err := checkServer(d); err != nil {
		return nil, err
	}
	var src []byte
	name := d.Name + "/" + StateFile
	for _, a := range running {
		if a.Path == name {
			src = a.Content
		}
	}
	if src == nil {
		return newState(nil, nil), nil
	}
	doc, err := decodeState(name, src)
	if err != nil {
		return nil, err
	}
	if doc.Device != d.Name {
		return nil, fmt.Errorf("%s: the report is of device %q, not %s", name, doc.Device, d.Name)
	}
	if len(doc.Errors) > 0 {
		return nil, fmt.Errorf("%s: the server could not check every setting: %s", name, strings.Join(doc.Errors, "; "))
	}
	sc := scopeOf(d)
	seen := map[string]bool{}
	var es []renderers.Element
	for i, s := range doc.Settings {
		if s.Path == "" || len(s.Path) > maxPath {
			return nil, fmt.Errorf("%s: setting %d: path %q: want 1..%d bytes", name, i, s.Path, maxPath)
		}
		if seen[s.Path] {
			return nil, fmt.Errorf("%s: setting %s reported twice", name, s.Path)
		}
		seen[s.Path] = true
		if s.Have == nil || !sc.owns(s.Path) {
			continue
		}
		k, _ := kindOf(s.Path)
		es = append(es, renderers.Element{Path: s.Path, Value: *s.Have, Kind: k})
	}
	var um map[string]string
	for _, u := range doc.Unmanaged {
		if sc.owns(u.Path) {
			if um == nil {
				um = map[string]string{}
			}
			um[u.Path] = u.Why
		}
	}
	return newState(es, um), nil
}

// remedy is the remediation of a server: the settings file to install
// (the host.conf of the intent, for the runtime it names), the runtime
// sections to run, in the runtime's order, and the settings they write,
// value null for a setting removed (an HTB class of an earlier intent).
type remedy struct {
	Device   string      `json:"device"`
	Runtime  string      `json:"runtime"`
	Install  install     `json:"install"`
	Sections []string    `json:"sections"`
	Run      []string    `json:"run"`
	Writes   []remedyKey `json:"writes"`
}

type install struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Content string `json:"content"`
}

type remedyKey struct {
	Path  string  `json:"path"`
	Value *string `json:"value"`
}

// Diff returns the settings that differ, each with the disruption its
// catalog element has on linux, and the remediation that writes them: a
// JSON document with the host.conf to install at /etc/rocefab/host.conf,
// the command that runs the runtime's sections that write them
// (--only SECTION,...), and the settings written. A setting the server
// reported it cannot take at run time is left out of both.
func (Renderer) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	if err := checkServer(d); err != nil {
		return nil, renderers.Remediation{}, err
	}
	var um map[string]string
	if s, ok := running.(*State); ok {
		um = s.unmanaged
	}
	keep := func(es []renderers.Element) []renderers.Element {
		return slices.DeleteFunc(es, func(e renderers.Element) bool { _, ok := um[e.Path]; return ok })
	}
	changes := renderers.DiffElements(keep(running.Elements()), keep(desired.Elements()), renderers.Disruptions(d.Disruption[ir.PlatformLinux]))
	rem := renderers.Remediation{Format: renderers.JSON}
	if len(changes) == 0 {
		return changes, rem, nil
	}
	conf := string(conf(d))
	r := remedy{Device: d.Name, Runtime: runtimeDigest,
		Install: install{Path: SettingsPath, SHA256: digest(conf), Content: conf}}
	secs := map[string]bool{}
	for _, c := range changes {
		_, sec := kindOf(c.Path)
		secs[sec] = true
		r.Writes = append(r.Writes, remedyKey{Path: c.Path, Value: c.After})
	}
	var only []string
	for _, s := range sectionOrder {
		if secs[s] {
			only = append(only, s)
		}
	}
	r.Sections = only
	r.Run = []string{RuntimePath, "--settings", SettingsPath, "--only", strings.Join(only, ",")}
	rem.Content = r.encode()
	return changes, rem, nil
}

// encode lays a remediation out one member, and one write, a line, as a
// plan shows it.
func (r *remedy) encode() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	val := func(v any) {
		// Strings, a struct of strings and string slices always encode.
		_ = enc.Encode(v)
		b.Truncate(b.Len() - 1) // Encode ends each value with a newline
	}
	b.WriteString("{\n  \"device\": ")
	val(r.Device)
	b.WriteString(",\n  \"runtime\": ")
	val(r.Runtime)
	b.WriteString(",\n  \"install\": ")
	val(r.Install)
	b.WriteString(",\n  \"sections\": ")
	val(r.Sections)
	b.WriteString(",\n  \"run\": ")
	val(r.Run)
	b.WriteString(",\n  \"writes\": [")
	for i, w := range r.Writes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		val(w)
	}
	b.WriteString("\n  ]\n}\n")
	return b.Bytes()
}

// Apply applies a remediation to a server's running state the way the
// runtime would: each written setting's have becomes the written value (a
// setting not reported before is added with it as have and want, a removed
// one is dropped); nothing else of the report changes.
func (Renderer) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	if rem.Format != renderers.JSON {
		return nil, fmt.Errorf("host: a remediation in %s: want json", rem.Format)
	}
	out := slices.Clone(running)
	if len(bytes.TrimSpace(rem.Content)) == 0 {
		return out, nil
	}
	var r remedy
	if err := renderers.DecodeRemediation(rem.Content, &r); err != nil {
		return nil, fmt.Errorf("host: remediation: %w", err)
	}
	if err := renderers.CheckName("device", r.Device); err != nil {
		return nil, fmt.Errorf("host: remediation: %w", err)
	}
	name := r.Device + "/" + StateFile
	i := slices.IndexFunc(out, func(a renderers.Artifact) bool { return a.Path == name })
	doc := &stateDoc{Device: r.Device, Runtime: r.Runtime}
	if i >= 0 {
		var err error
		if doc, err = decodeState(name, out[i].Content); err != nil {
			return nil, err
		}
	}
	for _, w := range r.Writes {
		j := slices.IndexFunc(doc.Settings, func(s stateSetting) bool { return s.Path == w.Path })
		switch {
		case w.Value == nil && j >= 0:
			doc.Settings = slices.Delete(doc.Settings, j, j+1)
		case w.Value == nil:
		case j >= 0:
			doc.Settings[j].Have = new(*w.Value)
		default:
			doc.Settings = append(doc.Settings, stateSetting{Path: w.Path, Have: new(*w.Value), Want: new(*w.Value)})
		}
	}
	a := renderers.Artifact{Path: name, Format: renderers.JSON, Content: encodeState(doc)}
	if i >= 0 {
		out[i] = a
	} else {
		out = append(out, a)
	}
	return out, nil
}

// encodeState writes a report in the runtime's own layout (json_document):
// a report rocefab rewrites reads, byte for byte, like one the host wrote.
func encodeState(doc *stateDoc) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"device\": %s,\n  \"runtime\": %s,\n  \"tool\": %s,\n", jsonStr(doc.Device), jsonStr(doc.Runtime), jsonStr(doc.Tool))
	var settings, unmanaged, notes, errs []string
	for _, s := range doc.Settings {
		settings = append(settings, fmt.Sprintf(`{"path": %s, "have": %s, "want": %s}`, jsonStr(s.Path), jsonOrNull(s.Have), jsonOrNull(s.Want)))
	}
	for _, u := range doc.Unmanaged {
		unmanaged = append(unmanaged, fmt.Sprintf(`{"path": %s, "why": %s}`, jsonStr(u.Path), jsonStr(u.Why)))
	}
	for _, n := range doc.Notes {
		notes = append(notes, jsonStr(n))
	}
	for _, e := range doc.Errors {
		errs = append(errs, jsonStr(e))
	}
	jsonArray(&b, "settings", settings)
	b.WriteString(",\n")
	jsonArray(&b, "unmanaged", unmanaged)
	b.WriteString(",\n")
	jsonArray(&b, "notes", notes)
	b.WriteString(",\n")
	jsonArray(&b, "errors", errs)
	b.WriteString("\n}\n")
	return b.Bytes()
}

func jsonArray(b *bytes.Buffer, name string, elems []string) {
	if len(elems) == 0 {
		fmt.Fprintf(b, "  %q: []", name)
		return
	}
	fmt.Fprintf(b, "  %q: [\n", name)
	for i, e := range elems {
		b.WriteString("    " + e)
		if i < len(elems)-1 {
			b.WriteString(",\n")
		} else {
			b.WriteString("\n  ]")
		}
	}
}

func jsonOrNull(s *string) string {
	if s == nil {
		return "null"
	}
	return jsonStr(*s)
}

// jsonStr quotes s as the runtime's json_str does: backslash, quote,
// newline, tab and carriage return escaped, other control characters as
// blanks, everything else as it is.
func jsonStr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"':
			b.WriteString(`\"`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Setting is one setting of a server's report: its path, the value the
// server has and the one its installed settings want (nil: absent).
type Setting struct {
	Path       string
	Have, Want *string
}

// Report writes the report `rocefab-host.sh --check --json` prints on a
// server named device with the given tool, settings and notes, byte for
// byte in the runtime's layout: what a server's running state looks like
// in running/<server>/host-state.json, for tests and example fabrics.
func Report(device, tool string, settings []Setting, notes []string) []byte {
	doc := &stateDoc{Device: device, Runtime: runtimeDigest, Tool: tool, Notes: notes}
	for _, s := range settings {
		doc.Settings = append(doc.Settings, stateSetting{Path: s.Path, Have: s.Have, Want: s.Want})
	}
	return encodeState(doc)
}
