package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/token"

	"github.com/rocefab/rocefab/compiler/diag"
)

// Intent is a loaded fabric intent: the decoded value and what is needed to
// point back into the user's files.
type Intent struct {
	Fabric Fabric
	// Path is the file or directory the intent was loaded from; Dir is the
	// directory relative paths in the intent (topology.inventory) resolve from.
	Path, Dir string
	// Files are the source files of the intent.
	Files []string

	user cue.Value // the user's value alone: its positions are all in user files
}

// Load reads the intent at path: a .cue file, a .json file, or a directory
// holding one CUE package. It returns the intent (nil when it has schema
// errors), the schema diagnostics (RF001), and an error when the path could
// not be read at all.
func Load(path string) (*Intent, diag.List, error) {
	in, ds, _, err := LoadParsed(path)
	return in, ds, err
}

// LoadParsed is [Load], and says whether the intent's files parsed: parsed
// is false when they are not CUE or JSON (a syntax error), name packages or
// imports that cannot be resolved, or exceed the size limit. The
// diagnostics say where, and nothing of the intent was checked: lint
// reports that as an intent it could not read, not as findings.
func LoadParsed(path string) (in *Intent, ds diag.List, parsed bool, err error) {
	in, ds, err = loadIntent(path)
	return in, ds, !errors.Is(err, errUnparsed), ignoreUnparsed(err)
}

// errUnparsed marks what load returns for an intent whose files did not
// parse, with the diagnostics that say where.
var errUnparsed = errors.New("the intent's files do not parse")

func ignoreUnparsed(err error) error {
	if errors.Is(err, errUnparsed) {
		return nil
	}
	return err
}

func loadIntent(path string) (*Intent, diag.List, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read intent: %w", err)
	}
	isJSON := strings.HasSuffix(path, ".json")
	if !st.IsDir() && !isJSON && !strings.HasSuffix(path, ".cue") {
		return nil, nil, fmt.Errorf("cannot read intent %s: want a .cue file, a .json file or a directory of CUE files", path)
	}
	srcs, ds, err := readSources(path, st.IsDir())
	if err != nil {
		return nil, ds, err
	}
	if len(ds) > 0 {
		return nil, ds, errUnparsed
	}
	if ds := checkLimits(srcs); len(ds) > 0 {
		return nil, ds, nil
	}
	ctx := cuecontext.New()
	in := &Intent{Path: path, Dir: path}
	if !st.IsDir() {
		in.Dir = filepath.Dir(path)
	}
	for _, s := range srcs {
		in.Files = append(in.Files, s.name)
	}
	var user cue.Value
	if isJSON {
		b := srcs[0].data
		if !json.Valid(b) {
			return nil, jsonSyntaxDiags(path, b), errUnparsed
		}
		user = ctx.CompileBytes(b, cue.Filename(path))
	} else {
		// Name the files explicitly: an intent need not have a package
		// clause, and cue/load only takes files without one by name.
		rel := make([]string, len(srcs))
		for i, s := range srcs {
			rel[i] = "./" + filepath.Base(s.name)
		}
		insts := load.Instances(rel, &load.Config{Dir: in.Dir})
		if err := insts[0].Err; err != nil {
			return nil, loadDiags(err, path), errUnparsed
		}
		user = ctx.BuildInstance(insts[0])
	}
	if err := user.Err(); err != nil {
		return nil, cueDiags(err, user, cue.Value{}, path), nil
	}
	in.user = user

	def := ctx.CompileString(FabricCUE, cue.Filename(schemaFile)).LookupPath(cue.ParsePath("#Fabric"))
	if err := def.Err(); err != nil {
		return nil, nil, fmt.Errorf("internal error: the embedded schema does not compile: %v", err)
	}
	v := user.Unify(def)
	if err := v.Validate(cue.Concrete(true), cue.All()); err != nil {
		return nil, cueDiags(err, user, def, path), nil
	}
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, cueDiags(err, user, def, path), nil
	}
	if err := json.Unmarshal(b, &in.Fabric); err != nil {
		return nil, nil, fmt.Errorf("internal error: decoding the intent: %v", err)
	}
	ds = in.parseUnits()
	ds = append(ds, in.check()...)
	if len(ds) > 0 {
		ds.Sort()
		return nil, ds, nil
	}
	in.fill()
	return in, nil, nil
}

// Pos returns the position of the field at path (labels from the root, e.g.
// "classes", "roce", "ecn", "max") in the user's files. When the user did not
// write that field (it took a default), it returns the position of the
// nearest enclosing field the user did write, so that a finding about a
// default still points at something the user can change.
func (in *Intent) Pos(path ...string) diag.Pos {
	if in == nil || !in.user.Exists() {
		return diag.Pos{}
	}
	return posOf(in.user, path, in.firstFile())
}

func (in *Intent) firstFile() string {
	if len(in.Files) > 0 {
		return in.Files[0]
	}
	return in.Path
}

// Has reports whether the user wrote the field at path.
func (in *Intent) Has(path ...string) bool {
	if in == nil {
		return false
	}
	return in.user.LookupPath(makePath(path)).Exists()
}

func makePath(labels []string) cue.Path {
	sels := make([]cue.Selector, 0, len(labels))
	for _, l := range labels {
		if i, err := strconv.Atoi(l); err == nil && i >= 0 {
			sels = append(sels, cue.Index(i))
			continue
		}
		sels = append(sels, cue.Str(l))
	}
	return cue.MakePath(sels...)
}

// schemaAt returns the schema's constraint for the field at labels in
// the user's value. A plain lookup finds only required fields, so a field
// under an optional one (topology.spine.count, hosts.nccl.gidIndex) or an
// entry of a map (classes.roce.priority, tenants.a) would lose the "want"
// and "allowed here" of its error: each step tries the required field,
// the optional one, then the map's pattern or the list's elements.
func schemaAt(def cue.Value, labels []string) cue.Value {
	v := def
	for _, l := range labels {
		var tries []cue.Selector
		if i, err := strconv.Atoi(l); err == nil && i >= 0 {
			tries = []cue.Selector{cue.Index(i), cue.AnyIndex}
		} else {
			tries = []cue.Selector{cue.Str(l), cue.Str(l).Optional(), cue.AnyString}
		}
		next := cue.Value{}
		for _, sel := range tries {
			if w := v.LookupPath(cue.MakePath(sel)); w.Exists() {
				next = w
				break
			}
		}
		if !next.Exists() {
			return next
		}
		v = next
	}
	return v
}

func posOf(user cue.Value, path []string, fallback string) diag.Pos {
	for n := len(path); n >= 0; n-- {
		v := user.LookupPath(makePath(path[:n]))
		if !v.Exists() {
			continue
		}
		if p := toPos(v.Pos()); p.IsValid() {
			return p
		}
	}
	return diag.Pos{File: fallback, Line: 1, Column: 1}
}

func toPos(p token.Pos) diag.Pos {
	if !p.IsValid() || p.Filename() == "" {
		return diag.Pos{}
	}
	return diag.Pos{File: p.Filename(), Line: p.Line(), Column: p.Column()}
}

// schemaDiag is an RF001 finding. A value the message repeats (CUE's
// "invalid value ...", a device name) is cut to diag.EchoBytes: the
// schema sees the user's input before any length is checked.
func schemaDiag(pos diag.Pos, format string, args ...any) diag.Diagnostic {
	return diag.Diagnostic{Rule: RuleSchema, Name: NameSchema, Severity: diag.Error,
		Pos: pos, Message: diag.Shorten(fmt.Sprintf(format, args...))}
}

// loadDiags turns a cue/load error (syntax errors, two packages in one
// directory, imports that cannot be found) into positioned diagnostics.
func loadDiags(err error, path string) diag.List {
	var ds diag.List
	for _, e := range cueerrors.Errors(err) {
		pos := diag.Pos{File: path}
		if ps := cueerrors.Positions(e); len(ps) > 0 {
			if p := toPos(ps[0]); p.IsValid() {
				pos = p
			}
		}
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		if msg == "" {
			msg = e.Error()
		}
		ds = append(ds, schemaDiag(pos, "%s", msg))
	}
	if len(ds) == 0 {
		ds = append(ds, schemaDiag(diag.Pos{File: path}, "%v", err))
	}
	ds.Sort()
	return ds
}

// jsonSyntaxDiags reports where a JSON intent stops being JSON.
func jsonSyntaxDiags(path string, b []byte) diag.List {
	var v any
	err := json.Unmarshal(b, &v)
	pos := diag.Pos{File: path, Line: 1, Column: 1}
	if se, ok := err.(*json.SyntaxError); ok {
		pos = offsetPos(path, b, se.Offset)
	}
	return diag.List{schemaDiag(pos, "invalid JSON: %v", err)}
}

// offsetPos converts a byte offset into a line and column.
func offsetPos(path string, b []byte, off int64) diag.Pos {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line, col := 1, 1
	for _, c := range b[:max(off, 0)] {
		if c == '\n' {
			line, col = line+1, 1
			continue
		}
		col++
	}
	return diag.Pos{File: path, Line: line, Column: col}
}

// The unit patterns of fabric.cue, mapped to what they mean in words: CUE's
// own "does not match" message would show users a regular expression.
var patternForms = map[string]string{
	NamePattern:      "a name: " + NameForms,
	InterfacePattern: "an interface name: " + InterfaceForms,
	`^[0-9]+(\.[0-9]+)? ?(B|KB|MB|GB|KiB|MiB|GiB|cells)?$`: SizeForms,
	`^[0-9]+(\.[0-9]+)? ?(G|Gbit|Mbit|Kbit|T|Tbit|M|K)$`:   RateForms,
	`^[0-9]+(\.[0-9]+)? ?(m|km)$`:                          LengthForms,
	`^[0-9]+(\.[0-9]+)? ?(ns|us|ms|s)$`:                    DurationForms,
	`^NCCL_[A-Z0-9_]+$`:                                    "an NCCL variable name: NCCL_ followed by capitals, digits or '_'",
	`^[A-Za-z0-9._,:/=+-]*$`:                               "letters, digits and . _ , : / = + - only",
	`^[A-Za-z0-9._-]{1,32}$`:                               "a user name: 1 to 32 letters, digits, '.', '_' or '-'",
	`^[A-Z_][A-Z0-9_]*$`:                                   "an environment variable name",
}

// cueDiags turns evaluation errors into one diagnostic per field, with the
// user's position and, where the schema can say it, what is allowed.
func cueDiags(err error, user, def cue.Value, path string) diag.List {
	type key struct{ path, msg string }
	seen := map[key]bool{}
	var ds diag.List
	fallback := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		fallback = ""
	}
	for _, e := range cueerrors.Errors(err) {
		labels := errPath(e)
		p := fieldPath(labels)
		msg := describe(e, labels, user, def)
		if msg == "" {
			continue
		}
		k := key{p, msg}
		if seen[k] {
			continue
		}
		seen[k] = true
		var at []diag.Pos // the positions in the user's files
		for _, tp := range cueerrors.Positions(e) {
			if tp.Filename() != schemaFile {
				if q := toPos(tp); q.IsValid() && !slices.Contains(at, q) {
					at = append(at, q)
				}
			}
		}
		pos := diag.Pos{}
		if len(at) > 0 {
			pos = at[0]
		}
		if len(at) > 1 && strings.Contains(msg, "conflicting values") {
			// Two of the user's own declarations disagree (in one file
			// or in two files of a package): cite every one. The files
			// of an intent share one directory, so their base names
			// tell them apart, the same on every machine.
			cites := make([]string, len(at))
			for i, q := range at {
				cites[i] = fmt.Sprintf("%s:%d:%d", filepath.Base(q.File), q.Line, q.Column)
			}
			msg = conflictText(e) + ": the field is set at " + strings.Join(cites, " and ") + "; keep one value"
		}
		if !pos.IsValid() {
			file := fallback
			if file == "" {
				file = firstFileOf(user)
			}
			pos = posOf(user, labels, file)
		}
		text := msg
		if p != "" {
			text = p + ": " + msg
		}
		ds = append(ds, schemaDiag(pos, "%s", text))
	}
	if len(ds) == 0 {
		ds = append(ds, schemaDiag(diag.Pos{File: path}, "%v", err))
	}
	ds.Sort()
	// A disjunction reports one error per alternative; keep the clearest
	// one per field.
	return dedupeByPath(ds)
}

func firstFileOf(v cue.Value) string {
	if p := v.Pos(); p.IsValid() {
		return p.Filename()
	}
	return ""
}

// errPath returns the error's field path without the schema's definition
// name, so that it reads as the user wrote it.
func errPath(e cueerrors.Error) []string {
	p := e.Path()
	if len(p) > 0 && strings.HasPrefix(p[0], "#") {
		p = p[1:]
	}
	out := make([]string, len(p))
	for i, l := range p {
		out[i] = strings.Trim(l, `"`)
	}
	return out
}

// conflictText phrases a conflict as CUE's message does, without the
// bottom value (_|_) and the repeated path of its long form.
func conflictText(e cueerrors.Error) string {
	format, args := e.Msg()
	msg := fmt.Sprintf(format, args...)
	if i := strings.Index(msg, "conflicting values"); i >= 0 {
		msg = msg[i:]
	}
	if i := strings.Index(msg, ": "); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// fieldPath joins labels into the dotted path users read, quoting a label
// that is not a name ("classes.\"..\"", not "classes...") so that the path
// stays unambiguous.
func fieldPath(labels []string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = l
		if _, err := strconv.Atoi(l); err != nil && !ValidName(l) {
			parts[i] = strconv.Quote(l)
		}
	}
	return strings.Join(parts, ".")
}

// describe phrases one CUE error for a user: the value written, what is
// wrong, and what is allowed.
func describe(e cueerrors.Error, labels []string, user, def cue.Value) string {
	format, args := e.Msg()
	msg := fmt.Sprintf(format, args...)
	got := user.LookupPath(makePath(labels))
	if got.Err() != nil {
		got = cue.Value{} // a conflict: its value prints as _|_, which says nothing to a user
	}
	for _, l := range labels {
		if _, err := strconv.Atoi(l); err != nil && !ValidName(l) {
			return fmt.Sprintf("invalid name %q: names are %s", l, NameForms)
		}
	}
	want := ""
	if w := schemaAt(def, labels); w.Exists() {
		want = humanize(fmt.Sprint(w))
	}
	switch {
	case strings.Contains(msg, "field not allowed"):
		allowed := fieldNames(def, labels[:max(len(labels)-1, 0)])
		if len(allowed) > 0 {
			return "unknown field; allowed here: " + strings.Join(allowed, ", ")
		}
		return "unknown field"
	case strings.Contains(msg, "incomplete value") || strings.Contains(msg, "required but not present"):
		if want != "" {
			return "missing value: want " + want
		}
		return "missing value"
	case strings.Contains(msg, "does not match"), strings.Contains(msg, "out of bound"),
		strings.Contains(msg, "empty disjunction"), strings.Contains(msg, "conflicting values"),
		strings.Contains(msg, "mismatched types"), strings.Contains(msg, "invalid value"):
		if !got.Exists() {
			break
		}
		if want != "" {
			return fmt.Sprintf("invalid value %s: want %s", quoteVal(got), want)
		}
		if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
			msg = msg[i+2 : len(msg)-1] // "invalid value 9 (out of bound <=7)" -> "out of bound <=7"
		}
		msg = humanize(msg)
		if rest, ok := strings.CutPrefix(msg, "out of bound "); ok && !strings.ContainsAny(rest[:1], "<>!=") {
			msg = "want " + rest
		}
		return fmt.Sprintf("invalid value %s: %s", quoteVal(got), msg)
	}
	return humanize(msg)
}

// humanize replaces the schema's regular expressions with words and drops
// the default markers, so that "what is allowed" reads as the docs do.
func humanize(s string) string {
	if strings.Contains(s, "\n") || len(s) > 400 {
		return "see `rocefab schema`"
	}
	for re, forms := range patternForms {
		for _, q := range []string{re, strings.ReplaceAll(re, `\`, `\\`)} {
			s = strings.ReplaceAll(s, `=~"`+q+`"`, forms)
			s = strings.ReplaceAll(s, `=~`+strconv.Quote(q), forms)
		}
	}
	s = strings.ReplaceAll(s, "*", "")
	// CUE prints int & >=0 & <=255 as uint8 and int & >=0 & <=7 as
	// uint & <=7: say the lower bound in words users read.
	for _, u := range []struct{ name, bounds string }{{"uint8", "integer >=0 & <=255"}, {"uint16", "integer >=0 & <=65535"}, {"uint32", "integer >=0 & <=4294967295"}} {
		s = replaceWord(s, u.name, u.bounds)
	}
	s = strings.ReplaceAll(s, "uint & >=", "integer >=")
	s = strings.ReplaceAll(s, "uint &", "integer >=0 &")
	s = replaceWord(s, "uint", "integer >=0")
	s = strings.ReplaceAll(s, "int &", "integer")
	return s
}

// replaceWord replaces word in s where it stands alone (not inside a
// longer name or a quoted string's letters).
func replaceWord(s, word, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, word)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(word)
		alone := (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end]))
		b.WriteString(s[:i])
		if alone {
			b.WriteString(with)
		} else {
			b.WriteString(word)
		}
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '"' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func quoteVal(v cue.Value) string {
	if s, err := v.String(); err == nil {
		return strconv.Quote(s)
	}
	b, err := v.MarshalJSON()
	if err != nil || len(b) > 80 {
		return fmt.Sprint(v)
	}
	return string(b)
}

// fieldNames lists the fields the schema allows at path, sorted.
func fieldNames(def cue.Value, path []string) []string {
	v := schemaAt(def, path)
	if !v.Exists() {
		return nil
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var names []string
	for it.Next() {
		names = append(names, it.Selector().Unquoted())
	}
	slices.Sort(names)
	return names
}

// dedupeByPath keeps, for each field, the diagnostics of the most specific
// kind: a message naming what is allowed beats a bare one.
func dedupeByPath(ds diag.List) diag.List {
	best := map[string]int{}
	var out diag.List
	for _, d := range ds {
		field, _, _ := strings.Cut(d.Message, ": ")
		if i, ok := best[field]; ok && field != "" {
			if strings.Contains(d.Message, "want ") && !strings.Contains(out[i].Message, "want ") {
				out[i] = d
			}
			continue
		}
		best[field] = len(out)
		out = append(out, d)
	}
	return out
}

// parseUnit returns what parse makes of raw, handing its error to bad:
// each unit field but a size (bytes or cells) is read so. A field that is
// not required may be left out: an empty raw is then the zero value.
func parseUnit[T any](raw string, required bool, parse func(string) (T, error), bad func(error)) T {
	var n T
	if raw == "" && !required {
		return n
	}
	n, err := parse(raw)
	if err != nil {
		bad(err)
	}
	return n
}

// parseUnits parses every unit-typed field of the decoded fabric, reporting
// malformed ones at their positions. It walks the Go value by reflection so
// that a unit field added to the types is parsed without another line here.
func (in *Intent) parseUnits() diag.List {
	var ds diag.List
	var walk func(v reflect.Value, path []string)
	walk = func(v reflect.Value, path []string) {
		bad := func(err error) {
			ds = append(ds, schemaDiag(in.Pos(path...), "%s: %v", strings.Join(path, "."), err))
		}
		switch x := v.Addr().Interface().(type) {
		case *Size:
			if x.Raw == "" || x.Raw == "auto" {
				return
			}
			n, cells, err := ParseSize(x.Raw)
			if err != nil {
				bad(err)
			} else if cells {
				x.Cells = n
			} else {
				x.Bytes = n
			}
			return
		case *Rate:
			x.Bits = parseUnit(x.Raw, true, ParseRate, bad)
			return
		case *Speed:
			x.Gbps = parseUnit(x.Raw, false, ParseSpeed, bad)
			return
		case *Length:
			x.Metres = parseUnit(x.Raw, false, ParseLength, bad)
			return
		case *Duration:
			x.D = parseUnit(x.Raw, false, ParseDuration, bad)
			return
		}
		switch v.Kind() {
		case reflect.Struct:
			t := v.Type()
			for i := range t.NumField() {
				tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
				if tag == "" || tag == "-" {
					continue
				}
				walk(v.Field(i), append(slices.Clone(path), tag))
			}
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Map:
			keys := v.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
			for _, k := range keys {
				e := reflect.New(v.Type().Elem()).Elem()
				e.Set(v.MapIndex(k))
				walk(e, append(slices.Clone(path), k.String()))
				v.SetMapIndex(k, e)
			}
		}
	}
	walk(reflect.ValueOf(&in.Fabric).Elem(), nil)
	return ds
}
