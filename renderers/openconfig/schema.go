package openconfig

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/openconfig/goyang/pkg/yang"
)

// snode is one node of the OpenConfig schema below /qos and /interfaces,
// as the running-configuration reader walks it: its name, the module that
// defines it (RFC 7951 qualifies a member name whenever the module
// changes), and for a leaf its YANG type. It is built once from the
// generated code's schema and struct tags (ocdevice.go), so that reading a
// device's JSON needs no reflection and no ygot unmarshal: ygot v0.36.0's
// unmarshal formats every container it fills for a debug message that is
// then dropped, which costs about 0.4 s for a 64-port leaf, two hundred
// times the budget of a plan.
type snode struct {
	name, module string
	kind         snodeKind
	keys         []string // a list's key leaves, in schema order
	children     map[string]*snode
	parent       *snode
	// readOnly is config false: state, never configuration.
	readOnly bool
	typ      *yang.YangType
	// userOrdered keeps a leaf-list's order; a system-ordered one is a set.
	userOrdered bool
	// element is the catalog element a leaf realises (kindOf).
	element string
	// portOwned marks, below an interface list entry, the owned leaves
	// and the containers that lead to them.
	portOwned bool
	// dflt is a leaf's YANG default as the reader writes a value of its
	// type (hasDflt when it has one): a leaf holding it reads as absent.
	dflt    string
	hasDflt bool
}

type snodeKind uint8

const (
	kContainer snodeKind = iota
	kList
	kLeaf
	kLeafList
)

var (
	schemaOnce sync.Once
	schemaRoot *snode
	schemaErr  error
	// identityModules maps an identity's name to the modules defining one
	// of that name.
	identityModules map[string][]string
)

// schema returns the root of the schema index.
func schema() (*snode, error) {
	schemaOnce.Do(func() {
		root, entry, enums := generatedSchema()
		schemaRoot, schemaErr = indexSchema(root, entry)
		identityModules = map[string][]string{}
		for _, vals := range enums {
			for _, v := range vals {
				if !slices.Contains(identityModules[v[0]], v[1]) {
					identityModules[v[0]] = append(identityModules[v[0]], v[1])
				}
			}
		}
	})
	return schemaRoot, schemaErr
}

// indexSchema builds the index of the subtrees rocefab reads (/qos and
// /interfaces) from the root struct type of the generated code and its
// schema entry. Each struct field's tags give the path below the struct
// and the module of each path element; the schema entry gives kinds,
// keys and types.
func indexSchema(root reflect.Type, entry *yang.Entry) (*snode, error) {
	if root == nil || entry == nil {
		return nil, fmt.Errorf("internal error: no OpenConfig schema in the generated code")
	}
	n := &snode{kind: kContainer, children: map[string]*snode{}}
	for i := 0; i < root.NumField(); i++ {
		f := root.Field(i)
		if p := f.Tag.Get("path"); p != "qos" && p != "interfaces/interface" {
			continue
		}
		if err := addField(n, entry, f); err != nil {
			return nil, err
		}
	}
	if n.children["qos"] == nil || n.children["interfaces"] == nil {
		return nil, fmt.Errorf("internal error: the generated code has no /qos or /interfaces")
	}
	resolveLeafrefs(n, n)
	canonicalDefaults(n)
	annotate(n, "")
	iface := n.children["interfaces"].children["interface"]
	for rel := range portLeaves {
		c := iface
		for _, p := range strings.Split(rel, "/") {
			if c = c.children[p]; c == nil {
				return nil, fmt.Errorf("internal error: the generated code has no interface leaf %s", rel)
			}
			c.portOwned = true
		}
	}
	return n, nil
}

// canonicalDefaults writes every leaf default below n as the reader writes
// a value of the leaf's type ("false", "\"0\"" for a uint64, a quoted
// enumeration name). A default it cannot write so (none in the pinned
// models) is dropped: such a leaf is then compared as it is read.
//
// Why defaults matter: a device may report a leaf at its default or leave
// it out (RFC 7950 section 7.6.1: a leaf that is not set has its default
// in use; openconfig/lemming fills the defaults in, others omit them),
// and the desired tree sets some leaves to their default (drop false)
// and leaves others unset. Reading a leaf at its default as absent, on
// both sides, makes each of those the same state and no drift.
func canonicalDefaults(n *snode) {
	for _, c := range n.children {
		if c.kind == kLeaf && c.hasDflt {
			c.dflt, c.hasDflt = canonicalDefault(c)
		}
		canonicalDefaults(c)
	}
}

// canonicalDefault is leaf n's default, a YANG literal, as the reader
// writes a value of n's type: the literal tried as a JSON number or
// boolean, then as a JSON string.
func canonicalDefault(n *snode) (string, bool) {
	for _, src := range []string{n.dflt, quote(n.dflt)} {
		if src == "" {
			continue
		}
		raw := jnode{kind: src[0], start: 0, end: len(src)}
		switch {
		case src[0] >= '0' && src[0] <= '9', src[0] == '-':
			raw.kind = '0'
		case src == "true", src == "false":
		case src[0] == '"':
		default:
			continue
		}
		if v, err := scalar(n, &raw, []byte(src)); err == nil {
			return v, true
		}
	}
	return "", false
}

// annotate gives every leaf below n (at schema path p) its catalog element.
func annotate(n *snode, p string) {
	for name, c := range n.children {
		cp := p + "/" + name
		if c.kind == kLeaf || c.kind == kLeafList {
			c.element = kindOf(cp)
		}
		annotate(c, cp)
	}
}

// addField adds the paths of struct field f below n (whose schema entry
// is e), and recurses into the field's struct type. The generated structs
// are compressed: a field's path may run through config containers, and a
// list key has two ("config/name|name"), each with its modules.
func addField(n *snode, e *yang.Entry, f reflect.StructField) error {
	paths := strings.Split(f.Tag.Get("path"), "|")
	mods := strings.Split(f.Tag.Get("module"), "|")
	if len(mods) != len(paths) {
		return fmt.Errorf("internal error: field %s: paths %q and modules %q differ in number", f.Name, f.Tag.Get("path"), f.Tag.Get("module"))
	}
	for i := range paths {
		if err := addPath(n, e, f, paths[i], mods[i]); err != nil {
			return err
		}
	}
	return nil
}

func addPath(n *snode, e *yang.Entry, f reflect.StructField, tagPath, tagModule string) error {
	path := strings.Split(tagPath, "/")
	mods := strings.Split(tagModule, "/")
	if len(mods) != len(path) {
		return fmt.Errorf("internal error: field %s: path %q and module %q differ in length", f.Name, tagPath, tagModule)
	}
	for i, p := range path {
		ce := e.Dir[p]
		if ce == nil {
			return fmt.Errorf("internal error: field %s: no schema entry %q below %s", f.Name, p, e.Name)
		}
		c := n.children[p]
		if c == nil {
			c = &snode{name: p, module: mods[i], parent: n, readOnly: ce.ReadOnly()}
			switch {
			case ce.IsList():
				c.kind = kList
				c.keys = strings.Fields(ce.Key)
			case ce.IsLeafList():
				c.kind = kLeafList
				c.typ = ce.Type
				c.userOrdered = ce.ListAttr != nil && ce.ListAttr.OrderedByUser
			case ce.IsLeaf():
				c.kind = kLeaf
				c.typ = ce.Type
				c.dflt, c.hasDflt = ce.SingleDefaultValue()
			default:
				c.kind = kContainer
			}
			if c.kind == kContainer || c.kind == kList {
				c.children = map[string]*snode{}
			}
			n.children[p] = c
		}
		n, e = c, ce
	}
	if n.kind != kContainer && n.kind != kList {
		return nil
	}
	t := f.Type
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("internal error: field %s of %s is not a struct", f.Name, e.Name)
	}
	for i := 0; i < t.NumField(); i++ {
		if sf := t.Field(i); sf.Tag.Get("path") != "" {
			if err := addField(n, e, sf); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolveLeafrefs replaces each leafref's type with the type of the leaf
// it points at, so that a value is checked and written as that leaf's
// (a scheduler's sequence key is a uint32, a queue's name a string). A
// path that leaves the index keeps the leafref, read as any scalar.
func resolveLeafrefs(root, n *snode) {
	for _, c := range n.children {
		if c.typ != nil {
			for range 8 { // a leafref to a leafref
				if c.typ.Kind != yang.Yleafref {
					break
				}
				t := resolve(root, c.parent, c.typ.Path)
				if t == nil || t.typ == nil {
					break
				}
				c.typ = t.typ
			}
		}
		resolveLeafrefs(root, c)
	}
}

// resolve follows a leafref path ("../config/name",
// "/oc-if:interfaces/oc-if:interface/oc-if:name") from n, nil when it
// cannot. Predicates are dropped: only the node is wanted.
func resolve(root, n *snode, path string) *snode {
	if strings.HasPrefix(path, "/") {
		n = root
	}
	for _, p := range strings.Split(path, "/") {
		if i := strings.IndexByte(p, '['); i >= 0 {
			p = p[:i]
		}
		_, p = splitQName(strings.TrimSpace(p))
		switch p {
		case "":
			continue
		case "..":
			if n = n.parent; n == nil {
				return nil
			}
			continue
		}
		if n = n.children[p]; n == nil {
			return nil
		}
	}
	return n
}

// scalar checks the JSON scalar raw (a value of leaf n, or one item of a
// leaf-list) against n's type and returns it in RFC 7951 form: int8 to
// int32 and uint8 to uint32 as numbers, 64-bit integers and decimals as
// strings, identities qualified with their module. Devices differ on
// numbers and strings (a uint64 sent as a number), so either is read;
// what is written is always the RFC's form.
func scalar(n *snode, raw *jnode, src []byte) (string, error) {
	return scalarOf(n.typ, raw, src, 0)
}

func scalarOf(t *yang.YangType, raw *jnode, src []byte, depth int) (string, error) {
	if raw.kind == '{' || raw.kind == '[' {
		return "", fmt.Errorf("an object or array where a value is wanted")
	}
	if raw.kind == 'n' {
		return "", fmt.Errorf("null is not a value (RFC 7951 writes an empty leaf as [null])")
	}
	if t == nil {
		return canonical(raw, src), nil
	}
	if v, ok := fastScalar(t, raw, src); ok {
		return v, nil
	}
	text := raw.text(src)
	switch t.Kind {
	case yang.Yint8, yang.Yint16, yang.Yint32, yang.Yuint8, yang.Yuint16, yang.Yuint32, yang.Yint64, yang.Yuint64:
		if raw.kind != '0' && raw.kind != '"' {
			return "", fmt.Errorf("%s is not an integer", src[raw.start:raw.end])
		}
		num, err := yang.ParseInt(text)
		if err != nil {
			return "", fmt.Errorf("%s is not an integer", src[raw.start:raw.end])
		}
		if !inRange(t, num) {
			return "", fmt.Errorf("%s is outside %s", text, rangeOf(t))
		}
		if t.Kind == yang.Yint64 || t.Kind == yang.Yuint64 {
			return `"` + num.String() + `"`, nil
		}
		return num.String(), nil
	case yang.Ydecimal64:
		if raw.kind != '0' && raw.kind != '"' {
			return "", fmt.Errorf("%s is not a decimal", src[raw.start:raw.end])
		}
		num, err := yang.ParseDecimal(text, uint8(t.FractionDigits))
		if err != nil {
			return "", fmt.Errorf("%s is not a decimal64 with %d fraction digits", text, t.FractionDigits)
		}
		return `"` + num.String() + `"`, nil
	case yang.Ybool:
		if raw.kind != 't' && raw.kind != 'f' {
			return "", fmt.Errorf("%s is not true or false", src[raw.start:raw.end])
		}
		return text, nil
	case yang.Ystring, yang.Ybinary, yang.Ybits:
		if raw.kind != '"' {
			return "", fmt.Errorf("%s is not a string", src[raw.start:raw.end])
		}
		return quote(text), nil
	case yang.Yenum:
		if raw.kind != '"' || t.Enum == nil {
			return "", fmt.Errorf("%s is not an enumeration name", src[raw.start:raw.end])
		}
		if _, ok := t.Enum.ToInt[text]; !ok {
			return "", fmt.Errorf("%q is not one of %s", text, strings.Join(t.Enum.Names(), ", "))
		}
		return quote(text), nil
	case yang.Yidentityref:
		if raw.kind != '"' || t.IdentityBase == nil {
			return "", fmt.Errorf("%s is not an identity", src[raw.start:raw.end])
		}
		return identity(t.IdentityBase, text)
	case yang.Yempty:
		return "", fmt.Errorf("an empty leaf is written [null]")
	case yang.Yunion:
		if depth < 8 {
			for _, u := range t.Type {
				if v, err := scalarOf(u, raw, src, depth+1); err == nil {
					return v, nil
				}
			}
			return "", fmt.Errorf("%s matches no type of the union", src[raw.start:raw.end])
		}
	}
	return canonical(raw, src), nil
}

// fastScalar reads the common values without decoding them: a string
// without escapes is its own canonical form, and a small unsigned number
// of a 32-bit type is checked digit by digit. It declines (false) what it
// does not read; scalarOf then reads it.
func fastScalar(t *yang.YangType, raw *jnode, src []byte) (string, bool) {
	b := src[raw.start:raw.end]
	switch t.Kind {
	case yang.Ystring:
		if raw.kind == '"' && bytes.IndexByte(b, '\\') < 0 {
			return string(b), true
		}
	case yang.Yuint8, yang.Yuint16, yang.Yuint32, yang.Yint8, yang.Yint16, yang.Yint32:
		if raw.kind != '0' || len(b) > 9 || (len(b) > 1 && b[0] == '0') {
			return "", false
		}
		v, ok := digits(b)
		if !ok || !inRange(t, yang.FromInt(v)) {
			return "", false
		}
		return string(b), true
	case yang.Yint64, yang.Yuint64:
		// RFC 7951 section 6.1 writes a 64-bit integer as a string: a
		// small one in plain digits is its own canonical form.
		if raw.kind != '"' || len(b) < 3 || len(b) > 20 || (len(b) > 3 && b[1] == '0') {
			return "", false
		}
		v, ok := digits(b[1 : len(b)-1])
		if !ok || !inRange(t, yang.FromInt(v)) {
			return "", false
		}
		return string(b), true
	case yang.Ybool:
		if raw.kind == 't' || raw.kind == 'f' {
			return string(b), true
		}
	case yang.Yenum:
		// A known name in plain ASCII is its own canonical form (quote
		// leaves it as it is).
		if raw.kind == '"' && t.Enum != nil && plainASCII(b) {
			if _, ok := t.Enum.ToInt[string(b[1:len(b)-1])]; ok {
				return string(b), true
			}
		}
	case yang.Yidentityref:
		// A qualified identity ("module:name", how devices and rocefab
		// write them) of the base, from a module that defines it, is
		// its own canonical form; identity reads the rest.
		if raw.kind != '"' || t.IdentityBase == nil || !plainASCII(b) {
			return "", false
		}
		mod, name, ok := bytes.Cut(b[1:len(b)-1], []byte{':'})
		if !ok || len(mod) == 0 || !slices.Contains(identityModules[string(name)], string(mod)) {
			return "", false
		}
		for _, v := range t.IdentityBase.Values {
			if v.Name == string(name) {
				return string(b), true
			}
		}
	}
	return "", false
}

// plainASCII says whether the JSON string b (quotes included) holds only
// printable ASCII and no escape, so that its text is its content.
func plainASCII(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	for _, c := range b[1 : len(b)-1] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// canonical writes a scalar of a type the reader does not check (a
// leafref it cannot follow): strings re-encoded, other values as written.
func canonical(raw *jnode, src []byte) string {
	if b := src[raw.start:raw.end]; raw.kind == '"' && plainASCII(b) {
		return string(b) // quote would write it as it is
	}
	if raw.kind == '"' {
		return quote(raw.text(src))
	}
	return string(src[raw.start:raw.end])
}

func inRange(t *yang.YangType, n yang.Number) bool {
	r := t.Range
	if len(r) == 0 {
		r = builtinRanges[t.Kind]
	}
	for _, yr := range r {
		if !n.Less(yr.Min) && !yr.Max.Less(n) {
			return true
		}
	}
	return len(r) == 0
}

func rangeOf(t *yang.YangType) string {
	if len(t.Range) > 0 {
		return t.Range.String()
	}
	return builtinRanges[t.Kind].String()
}

// builtinRanges are the ranges of YANG's integer types (RFC 7950 9.2),
// for a type that states none.
var builtinRanges = map[yang.TypeKind]yang.YangRange{
	yang.Yint8: yang.Int8Range, yang.Yint16: yang.Int16Range, yang.Yint32: yang.Int32Range, yang.Yint64: yang.Int64Range,
	yang.Yuint8: yang.Uint8Range, yang.Yuint16: yang.Uint16Range, yang.Yuint32: yang.Uint32Range, yang.Yuint64: yang.Uint64Range,
}

// identity checks that text names an identity derived from base and
// returns it qualified: "openconfig-if-ethernet:SPEED_400GB".
func identity(base *yang.Identity, text string) (string, error) {
	mod, name := splitQName(text)
	found := false
	for _, v := range base.Values {
		if v.Name == name {
			found = true
			break
		}
	}
	if !found {
		return "", fmt.Errorf("%q is not an identity derived from %s", text, base.Name)
	}
	mods := identityModules[name]
	switch {
	case mod != "" && !slices.Contains(mods, mod):
		return "", fmt.Errorf("%q: module %s defines no identity %s derived from %s", text, mod, name, base.Name)
	case mod != "":
		return quote(text), nil
	case len(mods) == 1:
		return quote(mods[0] + ":" + name), nil
	}
	return "", fmt.Errorf("%q: name the module of the identity (one of %s)", text, strings.Join(mods, ", "))
}

// keyText is a list key's value as a gNMI path key: a string's content,
// a number's digits.
func keyText(raw *jnode, src []byte) string {
	if raw.kind == '"' {
		return raw.text(src)
	}
	s := string(src[raw.start:raw.end])
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// digits reads b, at most 18 decimal digits and nothing else, as a number.
func digits(b []byte) (int64, bool) {
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, len(b) > 0
}
