package telemetry

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
)

func TestOneFileTwoTimestamps(t *testing.T) {
	const snap = `# HELP node_ethtool_transmitted_prio3_pause Network interface tx_prio3_pause
# TYPE node_ethtool_transmitted_prio3_pause untyped
node_ethtool_transmitted_prio3_pause{device="eth2",instance="gpu-0001:9100"} 100 1000
node_ethtool_transmitted_prio3_pause{device="eth2",instance="gpu-0001:9100"} 2100 11000
node_ethtool_received_prio3_pause{device="eth2",instance="gpu-0001:9100"} 50 11000
node_ethtool_received_prio3_pause{device="eth2",instance="gpu-0001:9100"} 5000 1000
interfaces_interface_state_counters_carrier_transitions{interface_name="Ethernet1/1",source="leaf-00"} 9 1000
interfaces_interface_state_counters_carrier_transitions{interface_name="Ethernet1/1",source="leaf-00"} 9 11000
node_cpu_seconds_total{cpu="0",mode="idle"} 1 1000
node_ethtool_link_down_events_phy{device="eth2",instance="gpu-0001:9100"} 3 1000
node_ethtool_transmitted_prio3_pause{instance="gpu-0001:9100"} 1 1000
`
	w := NewWindow()
	if err := w.Read(strings.NewReader(snap), "snap.prom", 0); err != nil {
		t.Fatal(err)
	}
	rates := collect(t, w)
	if single := w.Single(); single != 1 || w.Skipped != 1 {
		t.Errorf("single %d, skipped %d: want one sample alone and the unlabelled one skipped", single, w.Skipped)
	}
	tx := rates[Key{Device: "gpu-0001", Port: "eth2", Counter: TxPause, Priority: 3}]
	if tx.PerSecond != 200 || tx.Seconds != 10 {
		t.Errorf("tx pause %+v, want 200/s over 10 s", tx)
	}
	// Out of order in the file, and reset in the window: the increase is
	// the last value.
	rx := rates[Key{Device: "gpu-0001", Port: "eth2", Counter: RxPause, Priority: 3}]
	if rx.PerSecond != 5 {
		t.Errorf("rx pause after a reset %+v, want 5/s", rx)
	}
	c := rates[Key{Device: "leaf-00", Port: "Ethernet1/1", Counter: Carrier, Priority: AnyPriority}]
	if c.PerSecond != 0 || c.Series().String() != `interfaces_interface_state_counters_carrier_transitions{interface_name="Ethernet1/1",source="leaf-00"}` {
		t.Errorf("carrier %+v", c)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`node_ethtool_link_down_events_phy{device="eth2" 1`, `snap.prom:1: node_ethtool_link_down_events_phy: label`},
		{`node_ethtool_link_down_events_phy{device=eth2} 1`, `must be quoted`},
		{`node_ethtool_link_down_events_phy{device="eth2"} one`, `value "one" is not a finite number`},
		{`node_ethtool_link_down_events_phy{device="eth2"} 1 soon`, `timestamp "soon"`},
		{`node_ethtool_link_down_events_phy{device="eth2"}`, `want a value`},
		{"\n\n{}", `snap.prom:3: "{}" is not a sample`},
	} {
		err := NewWindow().Read(strings.NewReader(tc.in), "snap.prom", 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`node_ethtool_received_prio3_pause{device="eth\"2",instance="h:1"} 1 5`)
	f.Add(`interfaces_interface_state_counters_in_octets{interface_name="x",source="s"} 1e3`)
	f.Fuzz(func(t *testing.T, s string) {
		w := NewWindow()
		_ = w.Read(strings.NewReader(s), "f", 0)
		collect(t, w)
	})
}

// collect gathers a window's rates by key, checking that every port keeps
// one number.
func collect(t testing.TB, w *Window) map[Key]Rate {
	t.Helper()
	rates := map[Key]Rate{}
	ports := map[[3]any]int{}
	for k, r := range w.Rates() {
		rates[k] = r
		id := [3]any{k.Device, k.Port, k.HCA}
		if n, ok := ports[id]; ok && n != r.Port {
			t.Fatalf("%s:%s has numbers %d and %d", k.Device, k.Port, n, r.Port)
		}
		ports[id] = r.Port
	}
	return rates
}

// TestWriteSampleRoundTrip: a Prometheus answer's labels, escaped as the
// text format escapes them, read back as they were.
func TestWriteSampleRoundTrip(t *testing.T) {
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	m := map[string]string{"__name__": "node_ethtool_link_down_events_phy", "device": "eth\"2\\\n", "instance": "gpu-0001:9100", "job": "node"}
	writeSample(bw, m, "3", 1000)
	writeSample(bw, m, "5", 3000)
	bw.Flush()
	w := NewWindow()
	if err := w.Read(strings.NewReader(b.String()), "api", 0); err != nil {
		t.Fatal(err)
	}
	rates := collect(t, w)
	if r := rates[Key{Device: "gpu-0001", Port: "eth\"2\\\n", Counter: Carrier, Priority: AnyPriority}]; r.PerSecond != 1 || r.Seconds != 2 || len(rates) != 1 {
		t.Errorf("rates %v: want the escaped device's series at 1/s over 2 s", rates)
	}
	if got := b.String(); !strings.HasPrefix(got, `node_ethtool_link_down_events_phy{device="eth\"2\\\n",instance="gpu-0001:9100",job="node"} 3 1000`) {
		t.Errorf("line %q", got)
	}
}

// TestBracesInValues: a label value may hold braces and escaped quotes;
// the label set still ends at its own brace.
func TestBracesInValues(t *testing.T) {
	const snap = `node_ethtool_link_down_events_phy{device="e}t\"h{0",instance="h:9100"} 1 1000
node_ethtool_link_down_events_phy{device="e}t\"h{0",instance="h:9100"} 4 2000
node_ethtool_link_down_events_phy{device="x",instance="h:9100"} 1 1000 }
`
	w := NewWindow()
	err := w.Read(strings.NewReader(snap), "snap.prom", 0)
	if err == nil || !strings.Contains(err.Error(), "snap.prom:3:") {
		t.Errorf("error %v, want one at line 3, whose label set does not end at the last brace", err)
	}
	rates := collect(t, w)
	if r := rates[Key{Device: "h", Port: `e}t"h{0`, Counter: Carrier, Priority: AnyPriority}]; r.PerSecond != 3 {
		t.Errorf("rates %v: want e}t\"h{0 at 3/s", rates)
	}
}

// TestLaterFileOutOfOrder: a file whose series come in another order than
// the last file's, with series and ports that file lacked, finds the
// label sets and ports read before again once the tables dropped after
// the first file are built anew.
func TestLaterFileOutOfOrder(t *testing.T) {
	const t0 = `interfaces_interface_state_counters_in_octets{interface_name="Ethernet1",source="leaf-0"} 100
interfaces_interface_state_counters_in_octets{interface_name="Ethernet2",source="leaf-0"} 200
interfaces_interface_state_counters_out_octets{interface_name="Ethernet1",source="leaf-0"} 300
node_ethtool_received_prio3_bytes{device="eth0",instance="gpu-0:9100"} 400
`
	const t1 = `node_ethtool_received_prio3_bytes{device="eth0",instance="gpu-0:9100"} 1400
qos_interfaces_interface_output_queues_queue_state_dropped_pkts{interface_interface_id="Ethernet1",queue_name="3",source="leaf-0"} 1
interfaces_interface_state_counters_out_octets{interface_name="Ethernet1",source="leaf-0"} 1300
interfaces_interface_state_counters_out_octets{interface_name="Ethernet2",source="leaf-0"} 5
interfaces_interface_state_counters_in_octets{interface_name="Ethernet2",source="leaf-0"} 1200
interfaces_interface_state_counters_in_octets{interface_name="Ethernet3",source="leaf-0"} 7
interfaces_interface_state_counters_in_octets{interface_name="Ethernet1",source="leaf-0"} 1100
`
	w := NewWindow()
	for i, snap := range []string{t0, t1} {
		if err := w.Read(strings.NewReader(snap), "snap.prom", int64(i)*10000); err != nil {
			t.Fatal(err)
		}
	}
	rates := collect(t, w)
	if len(rates) != 4 || w.Single() != 3 || w.Ports() != 4 || w.Devices() != 2 {
		t.Errorf("%d rates, %d sampled once, %d ports, %d devices: want 4, 3 (the series new in the second file), 4 and 2",
			len(rates), w.Single(), w.Ports(), w.Devices())
	}
	for _, k := range []Key{{Device: "leaf-0", Port: "Ethernet1", Counter: RxBytes}, {Device: "leaf-0", Port: "Ethernet2", Counter: RxBytes},
		{Device: "leaf-0", Port: "Ethernet1", Counter: TxBytes}, {Device: "gpu-0", Port: "eth0", Counter: RxBytes, Priority: 3}} {
		if k.Priority == 0 {
			k.Priority = AnyPriority
		}
		if r := rates[k]; r.PerSecond != 100 {
			t.Errorf("%+v: %v/s, want 100/s", k, r.PerSecond)
		}
	}
}

// TestReadBlocks reads files whose lines straddle the blocks a file is
// read in, longer than a block, ended with CRLF or not ended at all, and
// a line over the longest allowed, from a reader that gives a few bytes
// at a time.
func TestReadBlocks(t *testing.T) {
	long := strings.Repeat("x", blockSize+1000)
	var snap strings.Builder
	const n = 20000
	for i := range n {
		fmt.Fprintf(&snap, "node_ethtool_link_down_events_phy{device=\"eth%d\",instance=\"gpu-%05d:9100\"} %d 1000\r\n", i%8, i/8, i)
	}
	fmt.Fprintf(&snap, "node_ethtool_link_down_events_phy{device=\"eth0\",instance=\"gpu-x:9100\",note=%q} 7 1000\n", long)
	for i := range n {
		fmt.Fprintf(&snap, "node_ethtool_link_down_events_phy{device=\"eth%d\",instance=\"gpu-%05d:9100\"} %d 2000\n", i%8, i/8, 2*i)
	}
	fmt.Fprintf(&snap, "node_ethtool_link_down_events_phy{device=\"eth0\",instance=\"gpu-x:9100\",note=%q} 17 2000", long)
	for _, r := range []io.Reader{strings.NewReader(snap.String()), iotest.HalfReader(strings.NewReader(snap.String()))} {
		w := NewWindow()
		if err := w.Read(r, "snap.prom", 0); err != nil {
			t.Fatal(err)
		}
		rates := collect(t, w)
		if len(rates) != n+1 {
			t.Fatalf("%d rates, want %d", len(rates), n+1)
		}
		for _, i := range []int{0, 1, n / 2, n - 1} {
			k := Key{Device: fmt.Sprintf("gpu-%05d", i/8), Port: fmt.Sprintf("eth%d", i%8), Counter: Carrier, Priority: AnyPriority}
			if got := rates[k].PerSecond; got != float64(i) {
				t.Errorf("%v: %g/s, want %d", k, got, i)
			}
		}
		if got := rates[Key{Device: "gpu-x", Port: "eth0", Counter: Carrier, Priority: AnyPriority}].PerSecond; got != 10 {
			t.Errorf("the long line's series: %g/s, want 10", got)
		}
	}
	tooLong := "node_ethtool_link_down_events_phy{device=\"eth0\",instance=\"gpu-0:9100\"} 1 1000\n" +
		"node_ethtool_link_down_events_phy{device=\"eth0\",instance=\"gpu-0:9100\",note=\"" + strings.Repeat("x", maxLine) + "\"} 1 1000\n"
	err := NewWindow().Read(strings.NewReader(tooLong), "snap.prom", 0)
	if err == nil || !strings.Contains(err.Error(), "snap.prom:2: "+bufio.ErrTooLong.Error()) {
		t.Errorf("a line over %d bytes: error %v, want it named at line 2", maxLine, err)
	}
}

// TestReadSplitsInTurn reads files of many blocks, which two goroutines
// split in turn: families that change every few thousand lines (so both
// meet names new to the window at once), timestamps that change from line
// to line in places, and an error far into the file, named at its line of
// the whole file rather than of its block.
func TestReadSplitsInTurn(t *testing.T) {
	var families []string
	for _, c := range []string{"link_down_events_phy", "received_crc_errors_phy", "received_prio3_pause", "transmitted_prio3_pause"} {
		families = append(families, "node_ethtool_"+c)
	}
	const perFamily = 7000
	file := func(scrape int64) *strings.Builder {
		var b strings.Builder
		for _, f := range families {
			for i := range perFamily {
				stamp := 1000 * scrape
				if i%5 == 0 {
					stamp += scrape * int64(i%3) // a timestamp unlike the line's before
				}
				fmt.Fprintf(&b, "%s{device=\"eth%d\",instance=\"gpu-%05d:9100\"} %d %d\n", f, i%8, i/8, scrape*int64(i), stamp)
			}
		}
		return &b
	}
	w := NewWindow()
	for scrape := range int64(2) {
		if err := w.Read(strings.NewReader(file(scrape+1).String()), "snap.prom", 0); err != nil {
			t.Fatal(err)
		}
	}
	rates := collect(t, w)
	if len(rates) != len(families)*perFamily {
		t.Fatalf("%d rates, want %d", len(rates), len(families)*perFamily)
	}
	for _, i := range []int{0, 1, 5, perFamily / 2, perFamily - 1} {
		k := Key{Device: fmt.Sprintf("gpu-%05d", i/8), Port: fmt.Sprintf("eth%d", i%8), Counter: RxPause, Priority: 3}
		// i over a second, or over a second and i%3 ms where the
		// timestamps move.
		secs := 1.0
		if i%5 == 0 {
			secs = float64(1000+i%3) / 1000
		}
		if got := rates[k]; math.Abs(got.PerSecond-float64(i)/secs) > 1e-9*float64(i) || got.Seconds != secs {
			t.Errorf("%v: %g/s over %gs, want %d over %gs", k, got.PerSecond, got.Seconds, i, secs)
		}
	}
	bad := file(3)
	lines := strings.Count(bad.String(), "\n")
	bad.WriteString("node_ethtool_received_crc_errors_phy{device=\"eth0\",instance=\"gpu-0:9100\"} one\n")
	bad.WriteString(file(3).String())
	err := NewWindow().Read(strings.NewReader(bad.String()), "snap.prom", 0)
	if want := fmt.Sprintf("snap.prom:%d: ", lines+1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it named at line %d", err, lines+1)
	}
}

// TestTail reads the ends of lines as the splitting does, in order, the
// timestamp of one line kept for the next, and sends what it does not
// read to the general reading: want is the start of the value's space,
// the value and the timestamp, "" when tail does not read the line.
func TestTail(t *testing.T) {
	var last stamp
	for _, tc := range []struct{ in, want string }{
		{`{a="b"} 12 1700000000000`, "7 12 1700000000000"},
		{`{a="c"} 13 1700000000000`, "7 13 1700000000000"}, // the timestamp compared
		{`{a="b"} 12`, "7 12 5"},
		{` 12 1700000000001`, "0 12 1700000000001"},
		{` 1700000000001`, "0 1.700000000001e+12 5"}, // the value only, though it is the last timestamp's digits
		{`{a="x 12"} 7`, "10 7 5"},
		{`{a="x"} 1 2 3`, "9 2 3"},                    // not after the brace: the caller reads the line again
		{`{a="b"} 1.5 1700000000000`, "11 1.7e+12 5"}, // likewise
		{`{a="b"} 1234567890123456 1`, "24 1 5"},      // likewise: 16 digits are a float's
		{`{a="b"}  1`, "8 1 5"},                       // likewise
		{`{a="b"} 1 1234567890123456789`, ""},         // 19 digits
		{`{a="b"} 1` + "\t" + `2`, ""},
		{`{a="b"} `, ""},
		{`{a="b"}1`, ""},
		{`1`, ""},
	} {
		got := ""
		if start, v, ts, ok := tail([]byte(tc.in), 5, &last); ok {
			got = fmt.Sprintf("%d %g %d", start, v, ts)
		}
		if got != tc.want {
			t.Errorf("tail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReadErrorLeavesPortsFound: a file that ends in an error leaves
// every series filed before it with its port, which the goroutine finding
// ports gives them after the filing.
func TestReadErrorLeavesPortsFound(t *testing.T) {
	const n = 20000
	var b strings.Builder
	for _, stamp := range []int{1000, 2000} {
		for i := range n {
			fmt.Fprintf(&b, "node_ethtool_link_down_events_phy{device=\"eth%d\",instance=\"gpu-%05d:9100\"} %d %d\n", i%8, i/8, stamp/1000*i, stamp)
		}
	}
	// Series new in the block that ends in the error, twice each.
	for _, stamp := range []int{1000, 2000} {
		for i := range 10 {
			fmt.Fprintf(&b, "node_ethtool_link_down_events_phy{device=\"eth%d\",instance=\"late:9100\"} %d %d\n", i, stamp/1000*i, stamp)
		}
	}
	b.WriteString("node_ethtool_link_down_events_phy{device=\"eth0\",instance=\"gpu-0:9100\"} one\n")
	w := NewWindow()
	if err := w.Read(strings.NewReader(b.String()), "snap.prom", 0); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("snap.prom:%d:", 2*n+21)) {
		t.Fatalf("error %v, want the last line's", err)
	}
	rates := collect(t, w)
	if len(rates) != n+10 {
		t.Fatalf("%d rates, want %d", len(rates), n+10)
	}
	for k, r := range rates {
		want := fmt.Sprintf(`device="%s",instance="%s:9100"`, k.Port, k.Device)
		if got := r.Series().Labels; got != want {
			t.Fatalf("the rate of %s:%s is series {%s}", k.Device, k.Port, got)
		}
	}
}

// TestReadStopsOnErrorFromPipe reads from a pipe whose writer goes on
// writing after a line that cannot be read: Read returns that line's
// error without waiting for the writer to finish, and, once the reader
// closes the pipe, the writer's next write fails.
func TestReadStopsOnErrorFromPipe(t *testing.T) {
	pr, pw := io.Pipe()
	wrote := make(chan error, 1)
	go func() {
		if _, err := io.WriteString(pw, "node_ethtool_link_down_events_phy{device=\"eth0\",instance=\"gpu-0:9100\"} one\n"); err != nil {
			wrote <- err
			return
		}
		line := []byte("node_ethtool_link_down_events_phy{device=\"eth1\",instance=\"gpu-0:9100\"} 1 1000\n")
		for {
			if _, err := pw.Write(line); err != nil {
				wrote <- err
				return
			}
		}
	}()
	err := NewWindow().Read(pr, "pipe", 0)
	if err == nil || !strings.Contains(err.Error(), "pipe:1:") {
		t.Fatalf("error %v, want the first line's", err)
	}
	pr.Close()
	if err := <-wrote; err == nil {
		t.Error("the writer wrote on after the reader closed the pipe")
	}
}
