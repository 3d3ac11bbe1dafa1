package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/summary"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets/routing"
)

// compiledExample is an example's path, fabric and SUMMARY.md.
type compiledExample struct {
	src string
	fab *ir.Fabric
	md  string
}

// compiledExamples holds each example compileExample compiled, for every
// test of the binary that reads it: hyperscale-100k takes seconds to
// compile, and the tests only read the fabric.
var compiledExamples struct {
	sync.Mutex
	byName map[string]compiledExample
}

// compileExample compiles examples/<name> (once for the test binary) and
// returns its path, fabric and SUMMARY.md.
func compileExample(t *testing.T, name string) (string, *ir.Fabric, string) {
	t.Helper()
	compiledExamples.Lock()
	defer compiledExamples.Unlock()
	if c, ok := compiledExamples.byName[name]; ok {
		return c.src, c.fab, c.md
	}
	src := filepath.Join(repoRoot(t), "examples", name)
	in, ds, err := schema.Load(src)
	if err != nil || in == nil {
		t.Fatalf("load %s: %v %v", name, err, ds)
	}
	fab, ds := compiler.Compile(in)
	if fab == nil {
		t.Fatalf("compile %s: %v", name, ds)
	}
	c := compiledExample{src: src, fab: fab, md: string(renderSummary(t, fab, ds, in.Dir))}
	if compiledExamples.byName == nil {
		compiledExamples.byName = map[string]compiledExample{}
	}
	compiledExamples.byName[name] = c
	return c.src, c.fab, c.md
}

// renderSummary renders SUMMARY.md as build does, after the fabric-wide
// files it lists.
func renderSummary(t *testing.T, fab *ir.Fabric, ds diag.List, dir string) []byte {
	t.Helper()
	reg := buildRegistry(renderOptions{}, ds, dir)
	var earlier []renderers.Artifact
	for _, r := range reg.Fabric {
		arts, err := r.RenderFabric(fab, earlier)
		if err != nil {
			t.Fatal(err)
		}
		earlier = append(earlier, arts...)
	}
	for _, a := range earlier {
		if a.Path == summary.File {
			return a.Content
		}
	}
	t.Fatal("the build's registry renders no SUMMARY.md")
	return nil
}

// mdText escapes a name as SUMMARY.md writes it.
func mdText(s string) string { return strings.ReplaceAll(s, "_", `\_`) }

// sameGroup is the devices of one role, platform and model, as SUMMARY's
// tables name them.
type sameGroup struct {
	role    ir.Role
	devices []*ir.Device
}

// groupsOf groups fab's devices by "role/platform/model".
func groupsOf(fab *ir.Fabric) map[string]*sameGroup {
	out := map[string]*sameGroup{}
	for _, d := range fab.Devices {
		k := string(d.Role) + "/" + d.Platform + "/" + d.Model
		if out[k] == nil {
			out[k] = &sameGroup{role: d.Role}
		}
		out[k].devices = append(out[k].devices, d)
	}
	return out
}

// plansOf returns the distinct buffer plans of a group's switches, in
// fabric order.
func plansOf(g *sameGroup) []*ir.BufferPlan {
	var out []*ir.BufferPlan
	for _, d := range g.devices {
		if d.Switch != nil && d.Switch.Buffers != nil && !slices.Contains(out, d.Switch.Buffers) {
			out = append(out, d.Switch.Buffers)
		}
	}
	return out
}

// mdTable is one markdown table of a document: its header and rows.
type mdTable struct {
	header []string
	rows   [][]string
}

// splitRow splits a table row into its cells, honouring escaped pipes.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

var separatorCell = regexp.MustCompile(`^:?-{3,}:?$`)

// parseTables checks every table of a markdown document as GitHub renders
// them (a header row, a separator row of dashes with the same cell count,
// rows with that count, a blank line before) and returns them.
func parseTables(t *testing.T, name, md string) []mdTable {
	t.Helper()
	lines := strings.Split(md, "\n")
	var out []mdTable
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") {
			continue
		}
		if i > 0 && lines[i-1] != "" {
			t.Errorf("%s:%d: a table must follow a blank line", name, i+1)
		}
		tb := mdTable{header: splitRow(lines[i])}
		if i+1 >= len(lines) {
			t.Fatalf("%s:%d: table without separator", name, i+1)
		}
		sep := splitRow(lines[i+1])
		if len(sep) != len(tb.header) {
			t.Errorf("%s:%d: separator has %d cells, header %d", name, i+2, len(sep), len(tb.header))
		}
		for _, c := range sep {
			if !separatorCell.MatchString(c) {
				t.Errorf("%s:%d: separator cell %q", name, i+2, c)
			}
		}
		i += 2
		for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			row := splitRow(lines[i])
			if len(row) != len(tb.header) {
				t.Errorf("%s:%d: %d cells, header has %d: %s", name, i+1, len(row), len(tb.header), lines[i])
			}
			tb.rows = append(tb.rows, row)
		}
		if i < len(lines) && lines[i] != "" {
			t.Errorf("%s:%d: a table must end with a blank line", name, i+1)
		}
		out = append(out, tb)
	}
	return out
}

// tableWith returns the table whose header starts with cols.
func tableWith(t *testing.T, tables []mdTable, cols ...string) mdTable {
	t.Helper()
	for _, tb := range tables {
		if len(tb.header) >= len(cols) && slices.Equal(tb.header[:len(cols)], cols) {
			return tb
		}
	}
	t.Fatalf("no table with columns %v", cols)
	return mdTable{}
}

var bytesInParens = regexp.MustCompile(`\(([0-9,]+) B\)`)

// cellBytes reads the exact bytes of a size cell, "13.00 MiB (13,631,488 B)".
func cellBytes(t *testing.T, cell string) string {
	t.Helper()
	m := bytesInParens.FindStringSubmatch(cell)
	if m == nil {
		t.Fatalf("size cell %q has no (N B)", cell)
	}
	return strings.ReplaceAll(m[1], ",", "")
}

func TestSummaryMarkdown(t *testing.T) {
	for _, ex := range []string{"pod-2048", "multitenant", "hyperscale-100k"} {
		t.Run(ex, func(t *testing.T) {
			_, fab, md := compileExample(t, ex)
			tables := parseTables(t, ex, md)
			for _, h := range []string{"## Devices", "## Files", "## Classes", "## Derived thresholds", "## Next steps", "## Findings"} {
				if !strings.Contains(md, "\n"+h+"\n") {
					t.Errorf("no section %q", h)
				}
			}
			// The headroom table names role, platform and model, and no
			// row repeats a port class of one of them with other values.
			hd := tableWith(t, tables, "role", "platform", "model", "port class")
			seen := map[string]bool{}
			for _, r := range hd.rows {
				k := strings.Join(r[:4], "/")
				if seen[k] {
					t.Errorf("port class row %s twice", k)
				}
				seen[k] = true
			}
			// A tenant without a server list spans every server and says so.
			for _, tn := range fab.Tenants {
				if len(tn.Servers) > 0 {
					continue
				}
				tt := tableWith(t, tables, "tenant", "class", "servers")
				for _, r := range tt.rows {
					if r[0] == mdText(tn.Name) && !strings.HasPrefix(r[2], "every server") {
						t.Errorf("tenant %s on any server: servers cell %q", tn.Name, r[2])
					}
				}
			}
			if strings.Contains(md, " 0 B / ") {
				t.Error("an ECN threshold of 0 B")
			}
		})
	}
}

// explainJSON runs explain --format json on target and returns its values.
func explainJSON(t *testing.T, src, target string) []explained {
	t.Helper()
	return decodeExplained(t, explainStdout(t, src, target))
}

// explainStdout runs explain --format json on target and returns what it
// prints.
func explainStdout(t *testing.T, src, target string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"explain", src, target, "--format", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("explain %s: exit %d: %s", target, code, stderr.String())
	}
	return stdout.Bytes()
}

func decodeExplained(t *testing.T, js []byte) []explained {
	t.Helper()
	var vals []explained
	if err := json.Unmarshal(js, &vals); err != nil {
		t.Fatal(err)
	}
	return vals
}

// explainedByCommand holds the examples whose first explained device
// exampleExplainer has checked against the command itself.
var explainedByCommand sync.Map

// exampleExplainer returns what explain --format json prints for a device
// of the example at src, compiled into fab (compileExample): the
// command's operation (explainTarget) on fab, printed and read back as
// the command prints it. The first device asked for of each example is
// explained by the command itself too, which compiles the example on its
// own, and must print the same bytes; the others are not, so that the
// example is not compiled again for every device.
func exampleExplainer(t *testing.T, src string, fab *ir.Fabric) func(dev string) []explained {
	cache := map[string][]explained{}
	return func(dev string) []explained {
		t.Helper()
		if v, ok := cache[dev]; ok {
			return v
		}
		vals, err := explainTarget(fab, dev, "")
		if err != nil {
			t.Fatalf("explain %s: %v", dev, err)
		}
		var js bytes.Buffer
		if err := printExplained(&js, "json", vals); err != nil {
			t.Fatal(err)
		}
		if _, done := explainedByCommand.Load(src); !done {
			if cmd := explainStdout(t, src, dev); !bytes.Equal(cmd, js.Bytes()) {
				t.Fatalf("explain %s %s --format json prints what explainTarget on the compiled example does not:\n%s\nwant\n%s", src, dev, cmd, js.Bytes())
			}
			explainedByCommand.Store(src, true)
		}
		cache[dev] = decodeExplained(t, js.Bytes())
		return cache[dev]
	}
}

func fieldBytes(vals []explained, field string) string {
	for _, v := range vals {
		if v.Field == field {
			return fmt.Sprint(v.Value)
		}
	}
	return "missing"
}

// TestSummaryAgreesWithExplain checks every threshold SUMMARY.md gives
// against what explain prints for a switch of that role, platform and model
// (and port class), and against the switch's native artifact.
func TestSummaryAgreesWithExplain(t *testing.T) {
	for _, ex := range []string{"pod-2048", "multitenant", "hyperscale-100k"} {
		t.Run(ex, func(t *testing.T) {
			src, fab, md := compileExample(t, ex)
			tables := parseTables(t, ex, md)
			groups := groupsOf(fab)
			native := map[string]string{}
			nativeOf := func(d *ir.Device) string {
				if s, ok := native[d.Name]; ok {
					return s
				}
				desc, _ := routing.Lookup(d.Platform)
				arts, err := desc.Renderer.Render(d)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				for _, a := range arts {
					b.Write(a.Content)
				}
				native[d.Name] = b.String()
				return b.String()
			}

			explainOf := exampleExplainer(t, src, fab)

			hd := tableWith(t, tables, "role", "platform", "model", "port class")
			for _, r := range hd.rows {
				g := groups[r[0]+"/"+r[1]+"/"+r[2]]
				if g == nil {
					t.Fatalf("headroom row %v: no such devices", r)
				}
				var dev *ir.Device
				port := ""
				for _, d := range g.devices {
					for _, pt := range d.Switch.Ports {
						if pt.Headroom != nil && pt.Headroom.Name == r[3] {
							dev, port = d, pt.Name
							break
						}
					}
					if dev != nil {
						break
					}
				}
				if dev == nil {
					t.Fatalf("headroom row %v: no port of that class", r)
				}
				var vals []explained
				for _, v := range explainOf(dev.Name) {
					if v.Port == port+" ("+r[3]+")" {
						vals = append(vals, v)
					}
				}
				for i, field := range map[int]string{4: "xoff", 5: "xon", 6: "headroom"} {
					if got, want := cellBytes(t, r[i]), fieldBytes(vals, field); got != want {
						t.Errorf("%s %s %s: SUMMARY %s, explain %s %s", r[2], r[3], hd.header[i], got, field, want)
					}
				}
				if size := cellBytes(t, r[6]); !regexp.MustCompile(`\b` + size + `\b`).MatchString(nativeOf(dev)) {
					t.Errorf("%s %s: headroom %s B not in %s's native artifact", r[2], r[3], size, dev.Name)
				}
			}

			// Buffer plans: per group, the set of (reserved, pool, xoff
			// point) rows equals what explain says for one switch of each
			// distinct plan.
			bp := tableWith(t, tables, "role", "platform", "model", "ports by class")
			got := map[string][]string{}
			for _, r := range bp.rows {
				k := r[0] + "/" + r[1] + "/" + r[2]
				reserved := r[6]
				if strings.HasPrefix(reserved, "none: shared pool") {
					// No share held for one class: the pool is the
					// shared one, in the shared column.
					reserved = "shared " + cellBytes(t, r[8])
				} else {
					reserved = cellBytes(t, reserved)
				}
				got[k] = append(got[k], reserved+" "+cellBytes(t, r[7])+" "+cellBytes(t, r[9]))
			}
			for k, g := range groups {
				if g.role == ir.RoleHost {
					continue
				}
				plans := plansOf(g)
				var want []string
				for _, p := range plans {
					i := slices.IndexFunc(g.devices, func(d *ir.Device) bool { return d.Switch.Buffers == p })
					d := g.devices[i]
					var sw []explained
					for _, v := range explainOf(d.Name) {
						if v.Port == "" {
							sw = append(sw, v)
						}
					}
					reserved := fieldBytes(sw, "reserved-pool")
					if p.Shared {
						reserved = "shared " + fieldBytes(sw, "shared-pool")
					}
					want = append(want, reserved+" "+fieldBytes(sw, "headroom-pool")+" "+fieldBytes(sw, "xoff-point"))
					if d.Platform == ir.PlatformEOS {
						// The pool EOS is configured with is the same
						// figure, or EOS's maximum with a note saying so.
						pool := fieldBytes(sw, "headroom-pool")
						line := "platform trident mmu headroom-pool limit bytes " + pool + "\n"
						clamped := "headroom pool of " + pool + " B: EOS takes at most"
						if cfg := nativeOf(d); !strings.Contains(cfg, line) && !strings.Contains(cfg, clamped) {
							t.Errorf("%s: eos.cfg has neither %q nor %q", d.Name, line, clamped)
						}
					}
				}
				slices.Sort(want)
				slices.Sort(got[k])
				if !slices.Equal(got[k], want) {
					t.Errorf("%s buffer plans (reserved, headroom pool, xoff point): SUMMARY %v, explain %v", k, got[k], want)
				}
			}
		})
	}
}

// TestSummaryFileMap checks that the file map names every file a build
// writes, and nothing it does not.
func TestSummaryFileMap(t *testing.T) {
	src := filepath.Join(repoRoot(t), "examples", "multitenant")
	out := buildQuiet(t, src)
	md, err := os.ReadFile(filepath.Join(out, "SUMMARY.md"))
	if err != nil {
		t.Fatal(err)
	}
	fm := tableWith(t, parseTables(t, "SUMMARY.md", string(md)), "files", "for")
	var patterns []string
	for _, r := range fm.rows {
		for _, f := range strings.Split(r[0], ", ") {
			patterns = append(patterns, regexp.MustCompile(`<[a-z]+>`).ReplaceAllString(strings.Trim(f, "`"), "*"))
		}
	}
	used := map[string]bool{}
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		rel = filepath.ToSlash(rel)
		for _, pat := range patterns {
			if ok, _ := filepath.Match(pat, rel); ok {
				used[pat] = true
				return nil
			}
		}
		if !strings.HasPrefix(rel, ".") { // the build's own bookkeeping
			t.Errorf("%s is not in the file map %v", rel, patterns)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pat := range patterns {
		if !used[pat] {
			t.Errorf("file map names %s, which the build did not write", pat)
		}
	}
}

// citedDoc matches a citation of a project document in code or data:
// "physics.md §1.2", "hosts.md 0.4", "switches.md §0, §3.1",
// "openconfig.md, section 2.5". The tail up to a closing parenthesis,
// semicolon or quote holds the sections.
var (
	citedDoc     = regexp.MustCompile(`\b(physics|hosts|switches|openconfig)\.md\b([^);"\x60]*)`)
	firstSection = regexp.MustCompile(`^,?\s*(?:§\s*|section\s+)?(\d+(?:\.\d+)*)`)
	// Further sections of the same document follow a comma: ", §3.6";
	// "physics.md §2, DCQCN §5" cites another work's §5.
	moreSections = regexp.MustCompile(`,\s*§\s*(\d+(?:\.\d+)*)`)
	// A numbered heading: "## 1. PFC headroom", "### 1.2 Vendor formulas".
	numberedHeading = regexp.MustCompile(`(?m)^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s`)
	// A Go comment continued on the next line.
	commentBreak = regexp.MustCompile(`\n\s*//\s*`)
)

// citations returns each cited document and section found in the Go and
// JSON files below the given directories, with a place that cites it.
func citations(t *testing.T, root string, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return fs.SkipDir
			}
			if d.IsDir() || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".json")) {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			text := commentBreak.ReplaceAllString(string(b), " ")
			rel, _ := filepath.Rel(root, p)
			for _, m := range citedDoc.FindAllStringSubmatch(text, -1) {
				doc, tail := m[1]+".md", m[2]
				var secs []string
				if f := firstSection.FindStringSubmatch(tail); f != nil {
					secs = append(secs, f[1])
				}
				for _, s := range moreSections.FindAllStringSubmatch(tail, -1) {
					secs = append(secs, s[1])
				}
				if len(secs) == 0 {
					out[doc] = rel
				}
				for _, s := range secs {
					out[doc+" "+s] = rel
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestCitedDocsExist: every "X.md §N" that code, data, artifacts or explain
// cite names a document in docs/ with a heading numbered N, so that a user
// can follow each citation.
func TestCitedDocsExist(t *testing.T) {
	root := repoRoot(t)
	cited := citations(t, root, "renderers", "compiler", "cmd", "schema")
	if len(cited) < 20 {
		t.Fatalf("found only %d citations: the extraction is broken", len(cited))
	}
	headings := map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(cited)) {
		doc, sec, _ := strings.Cut(k, " ")
		hs, ok := headings[doc]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, "docs", doc))
			if err != nil {
				t.Errorf("%s cites %s: docs/%s does not exist", cited[k], doc, doc)
				headings[doc] = nil
				continue
			}
			for _, m := range numberedHeading.FindAllStringSubmatch(string(b), -1) {
				hs = append(hs, m[1])
			}
			headings[doc] = hs
		}
		if sec != "" && hs != nil && !slices.Contains(hs, sec) {
			t.Errorf("%s cites %s §%s: docs/%s has no section %s (it has %v)", cited[k], doc, sec, doc, sec, hs)
		}
	}
}

// TestCitationExtraction pins the forms the extraction understands.
func TestCitationExtraction(t *testing.T) {
	dir := t.TempDir()
	src := `package x
// a (switches.md §3.4, §3.6), b (hosts.md 0.4). c (physics.md §1.3 rules of thumb, §3.1)
// d (openconfig.md, section
// 2.5, pitfall 5) e "hosts.md §4.2" f hosts.md 1.5 (a) and (b) g (physics.md §2, DCQCN §5)
`
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(citations(t, dir, "pkg")))
	want := []string{"hosts.md 0.4", "hosts.md 1.5", "hosts.md 4.2", "openconfig.md 2.5", "physics.md 1.3", "physics.md 2", "physics.md 3.1",
		"switches.md 3.4", "switches.md 3.6"}
	if !slices.Equal(got, want) {
		t.Errorf("citations = %v, want %v", got, want)
	}
}
