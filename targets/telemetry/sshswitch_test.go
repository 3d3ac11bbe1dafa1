package telemetry

import (
	"bufio"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
)

// TestCLIShapes: each platform's counters command's output, in the shape
// its public source shows (napalm's EOS and NX-OS fixtures,
// sonic-utilities' mock COUNTERS_DB as sonic-db-dump prints it), becomes
// the series gnmic would have served for the same counters: every field
// of docs/doctor.md section 10's tables, of the model's ports only.
func TestCLIShapes(t *testing.T) {
	for _, tc := range []struct {
		platform string
		ports    []string
		out      string
		want     []string
		err      string
	}{{
		platform: "eos", ports: []string{"Ethernet1", "Ethernet2"},
		// napalm test/eos/mocked_data/test_get_interfaces_counters/normal/show_interfaces.json
		out: `{"interfaces": {
  "Ethernet1": {"name": "Ethernet1", "hardware": "ethernet", "mtu": 9214,
    "interfaceStatistics": {"inBitsRate": 0.0, "updateInterval": 300.0},
    "interfaceCounters": {"outBroadcastPkts": 0, "linkStatusChanges": 2, "totalOutErrors": 0, "inMulticastPkts": 0,
      "counterRefreshTime": 1478085320.927135, "inBroadcastPkts": 0,
      "outputErrorsDetail": {"deferredTransmissions": 0, "txPause": 41, "collisions": 0, "lateCollisions": 0},
      "inOctets": 1200, "outDiscards": 0, "outOctets": 3400, "inUcastPkts": 0,
      "inputErrorsDetail": {"runtFrames": 0, "rxPause": 5, "fcsErrors": 7, "alignmentErrors": 0, "giantFrames": 0, "symbolErrors": 3},
      "outUcastPkts": 0, "outMulticastPkts": 0, "totalInErrors": 10, "inDiscards": 0}},
  "Port-Channel1": {"name": "Port-Channel1", "hardware": "portChannel",
    "interfaceCounters": {"linkStatusChanges": 1, "inOctets": 0, "outOctets": 0}},
  "Ethernet2": {"name": "Ethernet2", "hardware": "ethernet", "interfaceCounters": {"inOctets": 18446744073709551615}}
}}`,
		want: []string{
			`interfaces_interface_ethernet_state_counters_in_mac_pause_frames{interface_name="Ethernet1",source="sw"} 5 1000`,
			`interfaces_interface_ethernet_state_counters_in_symbol_error{interface_name="Ethernet1",source="sw"} 3 1000`,
			`interfaces_interface_ethernet_state_counters_out_mac_pause_frames{interface_name="Ethernet1",source="sw"} 41 1000`,
			`interfaces_interface_state_counters_carrier_transitions{interface_name="Ethernet1",source="sw"} 2 1000`,
			`interfaces_interface_state_counters_in_fcs_errors{interface_name="Ethernet1",source="sw"} 7 1000`,
			`interfaces_interface_state_counters_in_octets{interface_name="Ethernet1",source="sw"} 1200 1000`,
			`interfaces_interface_state_counters_in_octets{interface_name="Ethernet2",source="sw"} 18446744073709551615 1000`,
			`interfaces_interface_state_counters_out_octets{interface_name="Ethernet1",source="sw"} 3400 1000`,
		},
	}, {
		platform: "nxos", ports: []string{"Ethernet2/1"},
		// napalm test/nxos/mocked_data/test_get_interfaces/normal/show_interface.json
		out: `{"TABLE_interface": {"ROW_interface": [
  {"interface": "mgmt0", "state": "up", "eth_mtu": "1500", "vdc_lvl_in_bytes": 48773, "vdc_lvl_out_bytes": 723181},
  {"interface": "Ethernet2/1", "state": "up", "eth_mtu": "1500", "eth_link_flapped": "2week(s) 2day(s)", "eth_reset_cntr": 1,
   "eth_inucast": 0, "eth_inbytes": 900, "eth_crc": 4, "eth_inerr": 4, "eth_inpause": 6,
   "eth_outbytes": 800, "eth_outdiscard": 0, "eth_outpause": 9},
  {"interface": "Ethernet2/2", "eth_inbytes": 1}
]}}`,
		want: []string{
			`interfaces_interface_ethernet_state_counters_in_mac_pause_frames{interface_name="Ethernet2/1",source="sw"} 6 1000`,
			`interfaces_interface_ethernet_state_counters_out_mac_pause_frames{interface_name="Ethernet2/1",source="sw"} 9 1000`,
			`interfaces_interface_state_counters_in_fcs_errors{interface_name="Ethernet2/1",source="sw"} 4 1000`,
			`interfaces_interface_state_counters_in_octets{interface_name="Ethernet2/1",source="sw"} 900 1000`,
			`interfaces_interface_state_counters_out_octets{interface_name="Ethernet2/1",source="sw"} 800 1000`,
		},
	}, {
		// A table of one row is that row.
		platform: "nxos", ports: []string{"Ethernet1/1"},
		out:  `{"TABLE_interface": {"ROW_interface": {"interface": "Ethernet1/1", "eth_inbytes": "12", "eth_outbytes": 1.5}}}`,
		want: []string{`interfaces_interface_state_counters_in_octets{interface_name="Ethernet1/1",source="sw"} 12 1000`},
	}, {
		platform: "sonic", ports: []string{"Ethernet0"},
		// sonic-utilities tests/mock_tables/counters_db.json, as redisdl dumps it
		out: `{"COUNTERS_PORT_NAME_MAP": {"type": "hash", "value": {"Ethernet0": "oid:0x1000000000012", "Ethernet4": "oid:0x1000000000013"}},
  "COUNTERS_QUEUE_NAME_MAP": {"type": "hash", "value": {"Ethernet0:3": "oid:0x15000000000357", "Ethernet4:3": "oid:0x15000000000358"}},
  "COUNTERS:oid:0x1000000000012": {"type": "hash", "value": {"SAI_PORT_STAT_IF_IN_OCTETS": "100", "SAI_PORT_STAT_IF_OUT_OCTETS": "200",
    "SAI_PORT_STAT_IF_IN_ERRORS": "0", "SAI_PORT_STAT_IF_IN_FEC_SYMBOL_ERRORS": "3",
    "SAI_PORT_STAT_PFC_3_RX_PKTS": "11", "SAI_PORT_STAT_PFC_3_TX_PKTS": "22", "SAI_PORT_STAT_PFC_3_ON2OFF_RX_PKTS": "1"}},
  "COUNTERS:oid:0x1000000000013": {"type": "hash", "value": {"SAI_PORT_STAT_IF_IN_OCTETS": "9"}},
  "COUNTERS:oid:0x15000000000357": {"type": "hash", "value": {"SAI_QUEUE_STAT_PACKETS": "5", "SAI_QUEUE_STAT_DROPPED_PACKETS": "2",
    "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "33", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "1", "PFC_WD_STATUS": "operational"}},
  "COUNTERS_RIF_NAME_MAP": {"type": "hash", "value": {}},
  "COUNTERS_LAG_NAME_MAP": {"type": "string", "value": "x"}
}`,
		want: []string{
			`COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED{interface_name="Ethernet0",queue_name="3",source="sw"} 1 1000`,
			`COUNTERS_Ethernet_SAI_PORT_STAT_PFC_3_RX_PKTS{interface_name="Ethernet0",source="sw"} 11 1000`,
			`COUNTERS_Ethernet_SAI_PORT_STAT_PFC_3_TX_PKTS{interface_name="Ethernet0",source="sw"} 22 1000`,
			`interfaces_interface_state_counters_in_octets{interface_name="Ethernet0",source="sw"} 100 1000`,
			`interfaces_interface_state_counters_out_octets{interface_name="Ethernet0",source="sw"} 200 1000`,
			`qos_interfaces_interface_output_queues_queue_state_dropped_pkts{interface_interface_id="Ethernet0",queue_name="3",source="sw"} 2 1000`,
			`qos_interfaces_interface_output_queues_queue_state_ecn_marked_pkts{interface_interface_id="Ethernet0",queue_name="3",source="sw"} 33 1000`,
		},
	}, {
		// What a CLI prints for a command it does not take.
		platform: "eos", ports: []string{"Ethernet1"}, out: "% Invalid input\n",
		err: `"show interfaces | json" printed no JSON`,
	}} {
		t.Run(tc.platform, func(t *testing.T) {
			d := &ir.Device{Name: "sw", Platform: tc.platform, Switch: &ir.Switch{}}
			for _, p := range tc.ports {
				d.Switch.Ports = append(d.Switch.Ports, ir.Port{Name: p})
			}
			var b strings.Builder
			w := bufio.NewWriter(&b)
			n, err := cliReaders[tc.platform].parse(w, d, []string{tc.out}, 1000)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w.Flush()
			got := strings.Split(strings.TrimSpace(b.String()), "\n")
			slices.Sort(got)
			if n != len(tc.want) || !slices.Equal(got, tc.want) {
				t.Errorf("%d series:\n%s\nwant:\n%s", n, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
