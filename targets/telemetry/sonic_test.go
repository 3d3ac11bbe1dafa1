package telemetry

import (
	"strings"
	"testing"
)

// TestSONiCCounters reads SONiC's per-priority PFC and PFC watchdog
// counters as gnmic serves them once its event processor has turned the
// port and queue into labels (monitoring/gnmic.yaml): each lands on its
// switch port, the PFC counters on their priority, the watchdog's on its
// queue; a name of no priority is not read.
func TestSONiCCounters(t *testing.T) {
	const snap = `COUNTERS_Ethernet_SAI_PORT_STAT_PFC_3_TX_PKTS{interface_name="Ethernet8",source="leaf-r0-00",target="COUNTERS_DB"} 100 1000
COUNTERS_Ethernet_SAI_PORT_STAT_PFC_3_TX_PKTS{interface_name="Ethernet8",source="leaf-r0-00",target="COUNTERS_DB"} 20100 11000
COUNTERS_Ethernet_SAI_PORT_STAT_PFC_4_RX_PKTS{interface_name="Ethernet8",source="leaf-r0-00",target="COUNTERS_DB"} 0 1000
COUNTERS_Ethernet_SAI_PORT_STAT_PFC_4_RX_PKTS{interface_name="Ethernet8",source="leaf-r0-00",target="COUNTERS_DB"} 50 11000
COUNTERS_Ethernet_SAI_PORT_STAT_PFC_8_RX_PKTS{interface_name="Ethernet8",source="leaf-r0-00"} 0 1000
COUNTERS_Ethernet_SAI_PORT_STAT_PFC_8_RX_PKTS{interface_name="Ethernet8",source="leaf-r0-00"} 9 11000
COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED{interface_name="Ethernet8",queue_name="3",source="leaf-r0-00"} 2 1000
COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED{interface_name="Ethernet8",queue_name="3",source="leaf-r0-00"} 3 11000
`
	w := NewWindow()
	if err := w.Read(strings.NewReader(snap), "snap.prom", 0); err != nil {
		t.Fatal(err)
	}
	rates := collect(t, w)
	if len(rates) != 3 {
		t.Errorf("%d rates, want 3: %v", len(rates), rates)
	}
	port := Key{Device: "leaf-r0-00", Port: "Ethernet8"}
	at := func(c Counter, prio int8, queue string) Rate {
		k := port
		k.Counter, k.Priority, k.Queue = c, prio, queue
		return rates[k]
	}
	if r := at(TxPause, 3, ""); r.PerSecond != 2000 {
		t.Errorf("PFC frames sent on priority 3: %+v, want 2000/s", r)
	}
	if r := at(RxPause, 4, ""); r.PerSecond != 5 {
		t.Errorf("PFC frames received on priority 4: %+v, want 5/s", r)
	}
	if r := at(WatchdogStorms, AnyPriority, "3"); r.PerSecond != 0.1 || r.Series().Metric != "COUNTERS_Ethernet_Pfcwd_PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED" {
		t.Errorf("watchdog storms on queue 3: %+v, want one in 10 s", r)
	}
	if !strings.Contains(Selector(), "COUNTERS_Ethernet_SAI_PORT_STAT_PFC_[0-7]_(RX|TX)_PKTS") {
		t.Errorf("the Prometheus selector %s does not ask for SONiC's PFC counters", Selector())
	}
}
