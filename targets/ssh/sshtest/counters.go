package sshtest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Counters are one port's counters, which each emulator prints in its
// platform's own structured output (EOS `show interfaces | json`, NX-OS
// `show interface | json`, SONiC's COUNTERS_DB through `sonic-db-dump`)
// so that tests read them in the shapes the platforms print. A counter
// a platform's output has no field for is not printed by it.
type Counters struct {
	InOctets, OutOctets uint64
	// InPause and OutPause are MAC PAUSE frames received and sent (EOS,
	// NX-OS).
	InPause, OutPause uint64
	FCSErrors         uint64 // EOS, NX-OS
	SymbolErrors      uint64 // EOS
	Carrier           uint64 // link status changes, EOS
	// PFCRx and PFCTx are PFC frames by priority (SONiC).
	PFCRx, PFCTx map[int]uint64
	// Queues are the egress queues' counters by queue index (SONiC).
	Queues map[int]QueueCounters
}

// QueueCounters are one egress queue's counters.
type QueueCounters struct {
	ECNMarked, Dropped uint64
	// Storms is the PFC watchdog's storms detected on the queue.
	Storms uint64
}

// SetCounters replaces the counters the device prints, by port name, and
// what each port's grow by after every print (nil: they stand still), as
// traffic between two reads would make them.
func (d *device) SetCounters(now, step map[string]Counters) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.counters, d.step = maps.Clone(now), maps.Clone(step)
}

// advance adds each port's step to its counters, after a print. The
// caller holds the lock.
func (d *device) advance() {
	for p, s := range d.step {
		c := d.counters[p]
		c.InOctets += s.InOctets
		c.OutOctets += s.OutOctets
		c.InPause += s.InPause
		c.OutPause += s.OutPause
		c.FCSErrors += s.FCSErrors
		c.SymbolErrors += s.SymbolErrors
		c.Carrier += s.Carrier
		c.PFCRx, c.PFCTx = addPrio(c.PFCRx, s.PFCRx), addPrio(c.PFCTx, s.PFCTx)
		if len(s.Queues) > 0 {
			qs := maps.Clone(c.Queues)
			if qs == nil {
				qs = map[int]QueueCounters{}
			}
			for q, sq := range s.Queues {
				cq := qs[q]
				qs[q] = QueueCounters{ECNMarked: cq.ECNMarked + sq.ECNMarked, Dropped: cq.Dropped + sq.Dropped, Storms: cq.Storms + sq.Storms}
			}
			c.Queues = qs
		}
		d.counters[p] = c
	}
}

// addPrio adds step to per-priority counters c, into a new map.
func addPrio(c, step map[int]uint64) map[int]uint64 {
	if len(step) == 0 {
		return c
	}
	out := maps.Clone(c)
	if out == nil {
		out = map[int]uint64{}
	}
	for p, v := range step {
		out[p] += v
	}
	return out
}

// sortedPorts are the ports of c in name order, for outputs printed in a
// stable order.
func sortedPorts(c map[string]Counters) []string {
	return slices.Sorted(maps.Keys(c))
}

// eosInterfacesJSON prints `show interfaces | json` with the members of
// napalm's fixture of it (napalm-automation/napalm@ee70e634,
// test/eos/mocked_data/test_get_interfaces_counters/normal/show_interfaces.json):
// an "interfaces" object keyed by name, each with its "interfaceCounters",
// errors detailed in "inputErrorsDetail" and "outputErrorsDetail". EOS
// prints counters as JSON numbers. It advances the counters. The caller
// holds the lock.
func (d *device) eosInterfacesJSON() string {
	ifs := map[string]any{}
	for _, p := range sortedPorts(d.counters) {
		c := d.counters[p]
		ifs[p] = map[string]any{
			"name":               p,
			"hardware":           "ethernet",
			"interfaceStatus":    "connected",
			"lineProtocolStatus": "up",
			"interfaceCounters": map[string]any{
				"inOctets":           c.InOctets,
				"outOctets":          c.OutOctets,
				"linkStatusChanges":  c.Carrier,
				"inUcastPkts":        0,
				"outUcastPkts":       0,
				"totalInErrors":      c.FCSErrors + c.SymbolErrors,
				"totalOutErrors":     0,
				"inDiscards":         0,
				"outDiscards":        0,
				"counterRefreshTime": 1478085320.927135,
				"inputErrorsDetail": map[string]any{
					"runtFrames": 0, "rxPause": c.InPause, "fcsErrors": c.FCSErrors,
					"alignmentErrors": 0, "giantFrames": 0, "symbolErrors": c.SymbolErrors,
				},
				"outputErrorsDetail": map[string]any{
					"deferredTransmissions": 0, "txPause": c.OutPause, "collisions": 0, "lateCollisions": 0,
				},
			},
		}
	}
	// A management port, which a fabric does not cable.
	ifs["Management1"] = map[string]any{"name": "Management1", "hardware": "ethernet",
		"interfaceCounters": map[string]any{"inOctets": 1234, "outOctets": 5678}}
	d.advance()
	b, _ := json.MarshalIndent(map[string]any{"interfaces": ifs}, "", "    ")
	return string(b) + "\n"
}

// nxosInterfaceJSON prints `show interface | json` with the members of
// napalm's fixture of NX-API's answer to it
// (napalm-automation/napalm@ee70e634,
// test/nxos/mocked_data/test_get_interfaces/normal/show_interface.json):
// TABLE_interface.ROW_interface, one row per interface, counters as
// numbers. It advances the counters. The caller
// holds the lock.
func (d *device) nxosInterfaceJSON() string {
	rows := []any{map[string]any{"interface": "mgmt0", "state": "up", "vdc_lvl_in_bytes": 48773, "vdc_lvl_out_bytes": 723181}}
	for _, p := range sortedPorts(d.counters) {
		c := d.counters[p]
		rows = append(rows, map[string]any{
			"interface": p, "state": "up", "admin_state": "up",
			"eth_reset_cntr": 1,
			"eth_inbytes":    c.InOctets, "eth_outbytes": c.OutOctets,
			"eth_crc": c.FCSErrors, "eth_inerr": c.FCSErrors,
			"eth_inpause": c.InPause, "eth_outpause": c.OutPause,
			"eth_indiscard": 0, "eth_outdiscard": 0,
		})
	}
	d.advance()
	b, _ := json.MarshalIndent(map[string]any{"TABLE_interface": map[string]any{"ROW_interface": rows}}, "", "  ")
	return string(b) + "\n"
}

// sonicCountersDump prints what `sonic-db-dump -n COUNTERS_DB -k
// 'COUNTERS*'` prints: redisdl's dump (p/redis-dump-load redisdl.py,
// which sonic-py-common's sonic_db_dump_load runs), every key an object
// of its "type" and "value", a hash's value its fields as strings. The
// keys and fields are those of sonic-utilities' mock COUNTERS_DB
// (sonic-net/sonic-utilities@691b1bbc, tests/mock_tables/counters_db.json):
// COUNTERS_PORT_NAME_MAP (port to object id), COUNTERS_QUEUE_NAME_MAP
// ("<port>:<queue>" to object id) and COUNTERS:<oid> of each. It advances the
// counters. The caller holds the lock.
func (d *device) sonicCountersDump() string {
	dump := map[string]any{}
	hash := func(v map[string]string) map[string]any { return map[string]any{"type": "hash", "value": v} }
	ports, queues := map[string]string{}, map[string]string{}
	for i, p := range sortedPorts(d.counters) {
		c := d.counters[p]
		oid := fmt.Sprintf("oid:0x10000000000%02x", i+0x12)
		ports[p] = oid
		f := map[string]string{
			"SAI_PORT_STAT_IF_IN_OCTETS":  strconv.FormatUint(c.InOctets, 10),
			"SAI_PORT_STAT_IF_OUT_OCTETS": strconv.FormatUint(c.OutOctets, 10),
			"SAI_PORT_STAT_IF_IN_ERRORS":  "0",
		}
		for prio := range 8 {
			f[fmt.Sprintf("SAI_PORT_STAT_PFC_%d_RX_PKTS", prio)] = strconv.FormatUint(c.PFCRx[prio], 10)
			f[fmt.Sprintf("SAI_PORT_STAT_PFC_%d_TX_PKTS", prio)] = strconv.FormatUint(c.PFCTx[prio], 10)
		}
		dump["COUNTERS:"+oid] = hash(f)
		for _, q := range slices.Sorted(maps.Keys(c.Queues)) {
			qc := c.Queues[q]
			qoid := fmt.Sprintf("oid:0x150000000%02x%02x", i, q)
			queues[fmt.Sprintf("%s:%d", p, q)] = qoid
			dump["COUNTERS:"+qoid] = hash(map[string]string{
				"SAI_QUEUE_STAT_PACKETS":                 "0",
				"SAI_QUEUE_STAT_DROPPED_PACKETS":         strconv.FormatUint(qc.Dropped, 10),
				"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": strconv.FormatUint(qc.ECNMarked, 10),
				"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED":   strconv.FormatUint(qc.Storms, 10),
				"PFC_WD_STATUS":                          "operational",
			})
		}
	}
	dump["COUNTERS_PORT_NAME_MAP"] = hash(ports)
	dump["COUNTERS_QUEUE_NAME_MAP"] = hash(queues)
	d.advance()
	b, _ := json.Marshal(dump)
	return string(b)
}
