package telemetry

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Prometheus reads the counters doctor knows from a Prometheus server's
// HTTP API: an instant query at the start of the window and one at its
// end, each selecting every family doctor reads by name, so that every
// series gets the two samples a rate needs. The API is Prometheus's
// stable v1 (https://prometheus.io/docs/prometheus/latest/querying/api/):
// POST /api/v1/query with the form fields query and time (Unix seconds),
// answered by {"status":"success","data":{"resultType":"vector","result":
// [{"metric":{labels},"value":[time,"value"]}]}} or by
// {"status":"error","errorType":...,"error":...}.
type Prometheus struct {
	// URL is the server's base URL, e.g. http://prometheus:9090; a path
	// prefix (a server behind --web.route-prefix) is kept.
	URL    string
	Client *http.Client
}

// Read adds to w the samples of the families doctor reads at start and at
// end. A series the server has at one time only has no rate.
func (p Prometheus) Read(ctx context.Context, w *Window, start, end time.Time) error {
	if !end.After(start) {
		return fmt.Errorf("prometheus %s: the window ends (%s) before it starts (%s)", p.URL, end.Format(time.RFC3339), start.Format(time.RFC3339))
	}
	base, err := url.Parse(p.URL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return fmt.Errorf("prometheus %q: want an http:// or https:// URL", p.URL)
	}
	base.Path = strings.TrimSuffix(base.Path, "/") + "/api/v1/query"
	for _, at := range []time.Time{start, end} {
		if err := p.query(ctx, w, base.String(), at); err != nil {
			return err
		}
	}
	return nil
}

// query runs one instant query and files its samples into w, through the
// exposition parser so that both sources are read alike.
func (p Prometheus) query(ctx context.Context, w *Window, endpoint string, at time.Time) error {
	form := url.Values{"query": {Selector()}, "time": {strconv.FormatInt(at.Unix(), 10)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("prometheus %s: %v", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	client := p.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("prometheus: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponse)).Decode(&body); err != nil {
		return fmt.Errorf("prometheus %s: HTTP %d, not an API answer: %v", endpoint, resp.StatusCode, err)
	}
	if body.Status != "success" {
		return fmt.Errorf("prometheus %s: HTTP %d: %s: %s", endpoint, resp.StatusCode, body.ErrorType, body.Error)
	}
	if body.Data.ResultType != "vector" {
		return fmt.Errorf("prometheus %s: the query returned a %q, want a vector", endpoint, body.Data.ResultType)
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 1<<16)
		for _, r := range body.Data.Result {
			ts, _ := r.Value[0].(float64)
			v, _ := r.Value[1].(string)
			writeSample(bw, r.Metric, v, int64(ts*1000))
		}
		pw.CloseWithError(bw.Flush())
	}()
	err = w.Read(pr, "prometheus query at "+at.UTC().Format(time.RFC3339), 0)
	pr.Close()
	return err
}

// maxResponse bounds the answer read from a server: two instant queries
// of a 100,000-GPU fabric's families hold a few gigabytes of JSON at most.
const maxResponse = 8 << 30

// writeSample writes one sample as an exposition line: the name, the
// labels sorted and escaped as the text format escapes them (\\, \", \n),
// the value and the timestamp in milliseconds.
func writeSample(w *bufio.Writer, metric map[string]string, value string, ms int64) {
	w.WriteString(metric["__name__"])
	w.WriteByte('{')
	first := true
	for _, k := range slices.Sorted(maps.Keys(metric)) {
		if k == "__name__" {
			continue
		}
		if !first {
			w.WriteByte(',')
		}
		first = false
		w.WriteString(k)
		w.WriteString(`="`)
		w.WriteString(labelEscaper.Replace(metric[k]))
		w.WriteByte('"')
	}
	w.WriteString("} ")
	w.WriteString(value)
	w.WriteByte(' ')
	w.WriteString(strconv.FormatInt(ms, 10))
	w.WriteByte('\n')
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// Selector is the PromQL selector of every family doctor reads, by name.
func Selector() string {
	// The names are identifiers ([a-z0-9_]): nothing to quote.
	names := append(Families(), `node_ethtool_(received|transmitted)_prio[0-7]_(pause|bytes)`, `node_ethtool_received_prio[0-7]_discards`,
		sonicPFC+`[0-7]_(RX|TX)_PKTS`)
	return `{__name__=~"` + strings.Join(names, "|") + `"}`
}
