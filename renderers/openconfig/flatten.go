package openconfig

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"
	"github.com/openconfig/ygot/ygot"

	"github.com/rocefab/rocefab/renderers"
)

// flatten is the owned part of a typed OpenConfig tree (what build
// returns) as elements sorted by path: every configuration leaf below
// /qos and the owned leaves of the interfaces named in ports, each value
// in the RFC 7951 form the running-configuration reader writes (numbers
// of up to 32 bits as numbers, 64-bit ones as strings, identities
// qualified with their module), and a leaf at its YANG default left out
// as the reader leaves it out. The desired state is thus the model's own
// values, never text printed and read back; a test holds it equal to the
// reader's state of every example's artifact.
//
// The walk goes by the generated structs' path tags through the schema
// index (schema.go), the one the reader goes by, so that both agree on
// which leaves are configuration, which are owned and what catalog
// element each realises; it knows no generated identifier (ocdevice.go
// keeps those).
func flatten(tree any, ports map[string]bool) ([]renderers.Element, error) {
	root, err := schema()
	if err != nil {
		return nil, err
	}
	v := reflect.ValueOf(tree)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("internal error: the OpenConfig tree is %T, not a generated root struct", tree)
	}
	w := &walker{ports: ports, out: make([]renderers.Element, 0, 32*len(ports)+256)}
	if err := w.fields(v.Elem(), root, inQoS, true); err != nil {
		return nil, err
	}
	slices.SortFunc(w.out, byPath)
	for i := 1; i < len(w.out); i++ {
		if w.out[i].Path == w.out[i-1].Path {
			return nil, fmt.Errorf("internal error: %s is given twice", w.out[i].Path)
		}
	}
	return w.out, nil
}

// walker is one walk of a tree: the gNMI path of the node being walked
// and the elements found so far.
type walker struct {
	ports map[string]bool
	path  []byte
	out   []renderers.Element
}

// fields walks the set fields of struct sv, the container or list entry
// n; top is the root, where only /qos and /interfaces are walked.
func (w *walker) fields(sv reflect.Value, n *snode, sc scope, top bool) error {
	t := sv.Type()
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("path")
		fv := sv.Field(i)
		if tag == "" || unset(fv) {
			continue
		}
		// A compressed struct's field may stand for several paths (a
		// list key is "config/name|name"): each is a leaf of its own.
		for _, p := range strings.Split(tag, "|") {
			if err := w.field(fv, n, strings.Split(p, "/"), sc, top); err != nil {
				return err
			}
		}
	}
	return nil
}

// field walks value v at the path elems below n.
func (w *walker) field(v reflect.Value, n *snode, elems []string, sc scope, top bool) error {
	if top {
		switch elems[0] {
		case "qos":
			sc = inQoS
		case "interfaces":
			sc = inInterfaces
		default:
			return nil // not a tree rocefab owns
		}
	}
	mark := len(w.path)
	defer func() { w.path = w.path[:mark] }()
	for _, e := range elems {
		c := n.children[e]
		switch {
		case c == nil:
			return fmt.Errorf("internal error: %s/%s is not in the schema index", w.path, e)
		case c.readOnly, sc == inPort && !c.portOwned:
			return nil // state, or a port's leaf rocefab does not own
		}
		n = c
		w.path = append(append(w.path, '/'), e...)
	}
	switch n.kind {
	case kContainer:
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return w.errorf("a container held as %s", v.Type())
		}
		return w.fields(v.Elem(), n, sc, false)
	case kList:
		return w.list(v, n, sc)
	case kLeaf:
		return w.leaf(v, n)
	}
	return w.leafList(v, n)
}

// list walks the entries of list n, held as a map; each entry's path
// carries its keys sorted by name (gnmi-path-strings.md).
func (w *walker) list(v reflect.Value, n *snode, sc scope) error {
	if v.Kind() != reflect.Map {
		return w.errorf("a list held as %s", v.Type())
	}
	names := n.sortedKeys()
	vals := make([]string, len(n.keys))
	for it := v.MapRange(); it.Next(); {
		e := it.Value()
		if e.Kind() != reflect.Pointer || e.IsNil() || e.Elem().Kind() != reflect.Struct {
			continue
		}
		if err := w.keys(e.Elem(), n, vals); err != nil {
			return err
		}
		esc := sc
		if sc == inInterfaces {
			if !w.ports[vals[0]] {
				continue // an interface that is not one of the switch's ports
			}
			esc = inPort
		}
		mark := len(w.path)
		w.path = n.appendKeys(w.path, names, vals)
		err := w.fields(e.Elem(), n, esc, false)
		w.path = w.path[:mark]
		if err != nil {
			return err
		}
	}
	return nil
}

// keys sets vals to the key values of list entry sv (n's keys, in
// schema order), as a path key writes them: the field whose path is the
// key leaf itself.
func (w *walker) keys(sv reflect.Value, n *snode, vals []string) error {
	clear(vals)
	found := 0
	t := sv.Type()
	for i := 0; i < t.NumField(); i++ {
		for _, p := range strings.Split(t.Field(i).Tag.Get("path"), "|") {
			k := slices.Index(n.keys, p)
			if k < 0 || unset(sv.Field(i)) {
				continue
			}
			text, _, err := scalarText(sv.Field(i))
			if err != nil {
				return w.errorf("key %s: %v", p, err)
			}
			vals[k] = text
			found++
		}
	}
	if found != len(n.keys) {
		return w.errorf("a list entry without its key %q", strings.Join(n.keys, " "))
	}
	return nil
}

func (w *walker) leaf(v reflect.Value, n *snode) error {
	if n.typ != nil && n.typ.Kind == yang.Yempty {
		if b := reflect.Indirect(v); b.Kind() == reflect.Bool && b.Bool() {
			w.emit(n, "[null]") // RFC 7951 section 6.9
		}
		return nil
	}
	val, err := jsonScalar(v)
	if err != nil {
		return w.errorf("%v", err)
	}
	if n.hasDflt && val == n.dflt {
		return nil // the default in use either way (canonicalDefaults)
	}
	w.emit(n, val)
	return nil
}

func (w *walker) leafList(v reflect.Value, n *snode) error {
	if v.Kind() != reflect.Slice || v.Type().Name() == ygot.BinaryTypeName {
		return w.errorf("a leaf-list held as %s", v.Type())
	}
	items := make([]string, v.Len())
	for i := range items {
		s, err := jsonScalar(v.Index(i))
		if err != nil {
			return w.errorf("%v", err)
		}
		items[i] = s
	}
	if !n.userOrdered {
		// A set, written in the order the reader writes a device's.
		slices.SortFunc(items, compareScalars)
		items = slices.Compact(items)
	}
	w.emit(n, "["+strings.Join(items, ",")+"]")
	return nil
}

func (w *walker) emit(n *snode, v string) {
	w.out = append(w.out, renderers.Element{Path: string(w.path), Value: v, Kind: n.element})
}

func (w *walker) errorf(format string, args ...any) error {
	return fmt.Errorf("internal error: %s: %s", w.path, fmt.Sprintf(format, args...))
}

// unset reports whether a generated struct's field holds nothing: a nil
// pointer, map, slice or union, or an enumeration at its zero (UNSET).
func unset(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return v.IsNil()
	}
	if e, ok := v.Interface().(ygot.GoEnum); ok {
		return reflect.ValueOf(e).Int() == 0
	}
	return false
}

// jsonScalar is a leaf's value as RFC 7951 JSON: a string quoted, a
// 64-bit integer as a string (section 6.1), an identity as
// "module:name" (section 6.8).
func jsonScalar(v reflect.Value) (string, error) {
	text, str, err := scalarText(v)
	if err != nil || !str {
		return text, err
	}
	return quote(text), nil
}

// scalarText is a leaf's value as text, and whether RFC 7951 writes it
// as a JSON string. It takes the Go types ygot generates for the leaves
// rocefab sets; a union or a decimal64, which build never sets, is an
// error rather than a guess.
func scalarText(v reflect.Value) (text string, str bool, err error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false, fmt.Errorf("no value")
		}
		v = v.Elem()
	}
	if e, ok := v.Interface().(ygot.GoEnum); ok {
		def, ok := e.ΛMap()[v.Type().Name()][v.Int()]
		if !ok {
			return "", false, fmt.Errorf("%s has no name for %d", v.Type(), v.Int())
		}
		if def.DefiningModule != "" {
			return def.DefiningModule + ":" + def.Name, true, nil
		}
		return def.Name, true, nil
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), true, nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), false, nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return strconv.FormatUint(v.Uint(), 10), false, nil
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return strconv.FormatInt(v.Int(), 10), false, nil
	case reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true, nil
	case reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true, nil
	}
	return "", false, fmt.Errorf("a value of Go type %s, which the desired state does not write", v.Type())
}

// replaceOf is the /qos of a typed tree as the value of a gNMI replace:
// RFC 7951 with the top-level members qualified by their module (section
// 4), as ygot writes a subtree.
func replaceOf(tree any) (string, error) {
	v := reflect.Indirect(reflect.ValueOf(tree))
	if v.Kind() != reflect.Struct {
		return "", fmt.Errorf("internal error: the OpenConfig tree is %T, not a generated root struct", tree)
	}
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("path") != "qos" || unset(v.Field(i)) {
			continue
		}
		js, err := ygot.Marshal7951(v.Field(i).Interface(), &ygot.RFC7951JSONConfig{AppendModuleName: true})
		if err != nil {
			return "", fmt.Errorf("emitting /qos: %w", err)
		}
		return string(js), nil
	}
	return "", nil
}
