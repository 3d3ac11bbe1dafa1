package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
)

// The series a switch's counters become, whatever read them: gnmic's
// names of the OpenConfig leaves, and of SONiC's native COUNTERS_DB
// counters through the event processor (docs/doctor.md section 4), so
// that a switch read over SSH is diagnosed as one read over gNMI.
const (
	ocInOctets  = "interfaces_interface_state_counters_in_octets"
	ocOutOctets = "interfaces_interface_state_counters_out_octets"
	ocFCS       = "interfaces_interface_state_counters_in_fcs_errors"
	ocCarrier   = "interfaces_interface_state_counters_carrier_transitions"
	ocSymbol    = "interfaces_interface_ethernet_state_counters_in_symbol_error"
	ocInPause   = "interfaces_interface_ethernet_state_counters_in_mac_pause_frames"
	ocOutPause  = "interfaces_interface_ethernet_state_counters_out_mac_pause_frames"
	ocECN       = "qos_interfaces_interface_output_queues_queue_state_ecn_marked_pkts"
	ocDropped   = "qos_interfaces_interface_output_queues_queue_state_dropped_pkts"
	// sonicEthernet prefixes a COUNTERS_DB field as gnmic names it after
	// the path COUNTERS/Ethernet*/<field>.
	sonicEthernet = "COUNTERS_Ethernet_"
	sonicStorms   = "COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"
)

// cliField is one counter of a switch's structured output: the members
// leading to it below a port's object, and the series it is.
type cliField struct {
	path   []string
	metric string
}

// cliReader is how the counters of one platform's switches are read over
// SSH: the commands, which only read, and how what they print becomes
// series.
type cliReader struct {
	cmds  []string
	parse func(w *bufio.Writer, d *ir.Device, outs []string, ms int64) (int, error)
}

// cliReaders by platform. Each command and field is one a public source
// shows the platform printing (docs/doctor.md section 10); a counter of
// section 4 a platform's output has no field for is not read there.
// NVUE is not here: no public source was found showing the JSON that
// `nv show interface <if> counters -o json` prints.
var cliReaders = map[string]cliReader{
	"eos":   {cmds: []string{eosShowInterfaces}, parse: parseEOS},
	"nxos":  {cmds: []string{nxosShowInterface}, parse: parseNXOS},
	"sonic": {cmds: []string{sonicDumpCounters}, parse: parseSONiC},
}

// EOS: `show interfaces | json`: `show interfaces`, which napalm's EOS
// driver asks in JSON over eAPI for get_interfaces_counters
// (napalm-automation/napalm@ee70e634 napalm/eos/eos.py), whose answer its
// fixture
// test/eos/mocked_data/test_get_interfaces_counters/normal/show_interfaces.json
// holds: {"interfaces": {"<name>": {"interfaceCounters": {...}}}}, the
// pauses and the FCS and symbol errors detailed in inputErrorsDetail and
// outputErrorsDetail, the link's flaps in linkStatusChanges. The CLI
// prints a command's JSON model with `| json`, as rocefab already reads
// EOS (targets/ssh eos.go, and its sources). It has no per-queue or
// per-priority counter.
const eosShowInterfaces = "show interfaces | json"

var eosFields = []cliField{
	{[]string{"inOctets"}, ocInOctets},
	{[]string{"outOctets"}, ocOutOctets},
	{[]string{"linkStatusChanges"}, ocCarrier},
	{[]string{"inputErrorsDetail", "fcsErrors"}, ocFCS},
	{[]string{"inputErrorsDetail", "symbolErrors"}, ocSymbol},
	{[]string{"inputErrorsDetail", "rxPause"}, ocInPause},
	{[]string{"outputErrorsDetail", "txPause"}, ocOutPause},
}

// NX-OS: `show interface | json`, the structured output of `show
// interface` (cisco.nxos's cliconf appends `| json` to a command whose
// output it asks as JSON, ansible-collections/cisco.nxos
// plugins/cliconf/nxos.py _get_command_with_output), whose shape napalm's
// fixture of NX-API's answer holds (napalm-automation/napalm@ee70e634
// test/nxos/mocked_data/test_get_interfaces/normal/show_interface.json):
// {"TABLE_interface": {"ROW_interface": [{"interface": "<name>",
// "eth_inbytes": ..., ...}]}}. It has no symbol error or carrier
// transition count (eth_reset_cntr counts interface resets, and
// eth_link_flapped is a time), nor a per-queue or per-priority counter.
const nxosShowInterface = "show interface | json"

var nxosFields = []cliField{
	{[]string{"eth_inbytes"}, ocInOctets},
	{[]string{"eth_outbytes"}, ocOutOctets},
	{[]string{"eth_crc"}, ocFCS},
	{[]string{"eth_inpause"}, ocInPause},
	{[]string{"eth_outpause"}, ocOutPause},
}

// SONiC: the counters COUNTERS_DB holds, which SONiC's gNMI server serves
// (section 4) and its show commands read, dumped as JSON by sonic-db-dump
// (sonic-net/sonic-buildimage src/sonic-py-common/sonic_py_common/
// sonic_db_dump_load.py, which writes redisdl's dump: every key an object
// of its "type" and "value", a hash's value its fields). The keys and
// fields are those of sonic-net/sonic-utilities@691b1bbc
// tests/mock_tables/counters_db.json: COUNTERS_PORT_NAME_MAP and
// COUNTERS_QUEUE_NAME_MAP ("<port>:<queue>") name the objects whose
// COUNTERS:<oid> hold SAI_PORT_STAT_IF_{IN,OUT}_OCTETS,
// SAI_PORT_STAT_PFC_<p>_{RX,TX}_PKTS, and per queue
// SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS, SAI_QUEUE_STAT_DROPPED_PACKETS
// and PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED. COUNTERS_DB has no FCS
// error, symbol error (SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS counts FEC
// symbols, not the PCS's) or carrier transition count.
const sonicDumpCounters = "sonic-db-dump -n COUNTERS_DB -k 'COUNTERS*'"

var sonicPortFields = map[string]string{
	"SAI_PORT_STAT_IF_IN_OCTETS":  ocInOctets,
	"SAI_PORT_STAT_IF_OUT_OCTETS": ocOutOctets,
}

var sonicQueueFields = map[string]string{
	"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": ocECN,
	"SAI_QUEUE_STAT_DROPPED_PACKETS":         ocDropped,
	"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED":   sonicStorms,
}

// showReach is what sampleCLI needs of Reach: commands run on a switch
// over SSH.
type showReach interface {
	Show(ctx context.Context, d *ir.Device, cmds []string) ([]string, error)
}

// sampleCLI reads switch d's counters over SSH with its platform's
// commands and writes them as gnmic names them.
func sampleCLI(ctx context.Context, reach showReach, d *ir.Device, w *bufio.Writer) error {
	r, ok := cliReaders[d.Platform]
	if !ok {
		return fmt.Errorf("%s: not sampleable over SSH: no public source shows a %s counters command's structured output (docs/doctor.md section 10); "+
			"reach it over gNMI in the inventory (transport gnmi), or read the fabric from Prometheus (--prometheus, gnmic collecting it)", d.Name, d.Platform)
	}
	start := time.Now()
	outs, err := reach.Show(ctx, d, r.cmds)
	if err != nil {
		return err
	}
	if len(outs) != len(r.cmds) {
		return fmt.Errorf("%s: %d answers to %d commands", d.Name, len(outs), len(r.cmds))
	}
	n, err := r.parse(w, d, outs, midpoint(start))
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %q of %d ports: %w", d.Name, strings.Join(r.cmds, "; "), len(d.Switch.Ports), errNoCounters)
	}
	return nil
}

// decodeJSON decodes what cmd printed, numbers kept as printed.
func decodeJSON(cmd, out string, v any) error {
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%q printed no JSON: %v (it begins %q)", cmd, err, head(out))
	}
	return nil
}

// head is the beginning of out, for errors.
func head(out string) string {
	out = strings.TrimSpace(out)
	if len(out) > 80 {
		return out[:80] + "..."
	}
	return out
}

// fabricPorts are the names of d's ports in the model: only they are
// read, as over gNMI (a management port is not the fabric's).
func fabricPorts(d *ir.Device) map[string]bool {
	ports := make(map[string]bool, len(d.Switch.Ports))
	for _, p := range d.Switch.Ports {
		ports[p.Name] = true
	}
	return ports
}

// writeFields writes the fields of obj, one port's object, labelled
// source and interface_name.
func writeFields(w *bufio.Writer, device, port string, obj map[string]any, fields []cliField, ms int64) int {
	n := 0
	for _, f := range fields {
		var v any = obj
		for _, k := range f.path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if s, ok := jsonCounter(v); ok {
			n += writeKnown(w, f.metric, s, ms, "source", device, "interface_name", port)
		}
	}
	return n
}

// jsonCounter is v as a counter's digits: a JSON number, or a string of
// digits (64-bit counters printed as strings).
func jsonCounter(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return x.String(), true
	case string:
		return x, true
	}
	return "", false
}

// parseEOS writes the counters of `show interfaces | json`.
func parseEOS(w *bufio.Writer, d *ir.Device, outs []string, ms int64) (int, error) {
	var doc struct {
		Interfaces map[string]struct {
			InterfaceCounters map[string]any `json:"interfaceCounters"`
		} `json:"interfaces"`
	}
	if err := decodeJSON(eosShowInterfaces, outs[0], &doc); err != nil {
		return 0, err
	}
	n, ports := 0, fabricPorts(d)
	for _, name := range slices.Sorted(maps.Keys(doc.Interfaces)) {
		if ports[name] {
			n += writeFields(w, d.Name, name, doc.Interfaces[name].InterfaceCounters, eosFields, ms)
		}
	}
	return n, nil
}

// parseNXOS writes the counters of `show interface | json`. NX-OS prints
// a table of one row as that row rather than a list of it.
func parseNXOS(w *bufio.Writer, d *ir.Device, outs []string, ms int64) (int, error) {
	var doc struct {
		Table struct {
			Rows json.RawMessage `json:"ROW_interface"`
		} `json:"TABLE_interface"`
	}
	if err := decodeJSON(nxosShowInterface, outs[0], &doc); err != nil {
		return 0, err
	}
	var rows []map[string]any
	raw := bytes.TrimSpace(doc.Table.Rows)
	if len(raw) > 0 && raw[0] == '{' {
		raw = slices.Concat([]byte("["), raw, []byte("]"))
	}
	if len(raw) > 0 {
		if err := decodeJSON(nxosShowInterface, string(raw), &rows); err != nil {
			return 0, err
		}
	}
	n, ports := 0, fabricPorts(d)
	for _, row := range rows {
		name, _ := row["interface"].(string)
		if ports[name] {
			n += writeFields(w, d.Name, name, row, nxosFields, ms)
		}
	}
	return n, nil
}

// parseSONiC writes the counters of sonic-db-dump's COUNTERS_DB.
func parseSONiC(w *bufio.Writer, d *ir.Device, outs []string, ms int64) (int, error) {
	var dump map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if err := decodeJSON(sonicDumpCounters, outs[0], &dump); err != nil {
		return 0, err
	}
	hash := func(key string) map[string]string {
		var h map[string]string
		if e, ok := dump[key]; ok {
			// A key that is not a hash of strings holds nothing read.
			_ = json.Unmarshal(e.Value, &h)
		}
		return h
	}
	n, ports := 0, fabricPorts(d)
	portOIDs := hash("COUNTERS_PORT_NAME_MAP")
	for _, port := range slices.Sorted(maps.Keys(portOIDs)) {
		if !ports[port] {
			continue
		}
		fields := hash("COUNTERS:" + portOIDs[port])
		for _, f := range slices.Sorted(maps.Keys(fields)) {
			metric, ok := sonicPortFields[f]
			if !ok {
				// SAI_PORT_STAT_PFC_<p>_{RX,TX}_PKTS, named as gnmic
				// names them; writeKnown keeps those doctor reads.
				metric = sonicEthernet + f
			}
			n += writeKnown(w, metric, fields[f], ms, "source", d.Name, "interface_name", port)
		}
	}
	queueOIDs := hash("COUNTERS_QUEUE_NAME_MAP")
	for _, pq := range slices.Sorted(maps.Keys(queueOIDs)) {
		port, queue, ok := strings.Cut(pq, ":")
		if !ok || !ports[port] {
			continue
		}
		fields := hash("COUNTERS:" + queueOIDs[pq])
		for _, f := range slices.Sorted(maps.Keys(sonicQueueFields)) {
			v, ok := fields[f]
			if !ok {
				continue
			}
			metric := sonicQueueFields[f]
			portLabel := "interface_interface_id"
			if metric == sonicStorms {
				portLabel = "interface_name"
			}
			n += writeKnown(w, metric, v, ms, "source", d.Name, portLabel, port, "queue_name", queue)
		}
	}
	return n, nil
}
