package targets

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/renderers"
)

// A fabric's devices of one platform and role differ in few values: the
// names of their neighbours, their ports, their own name. Their plans
// differ in as few, so a plan file keeps what a device's plan lists and
// pushes (its body: the changes and the remediation) once per shape, and
// for each device the tokens where its body differs from the shape's (its
// own values), with the SHA-256 of the body they make. A hyperscale
// plan is then a few megabytes of shapes and each device's values,
// instead of every device's text copied whole; reading a device's body
// back rebuilds it token for token and refuses it unless it has the
// digest the file binds it to. A device's recorded desired state
// (DevicePlan.Desired) is kept the same way, in shapes of its own.

// body is what a device's plan lists and pushes, in the JSON its digest
// is of.
type body struct {
	Changes     []renderers.Change `json:"changes"`
	Remediation *Remediation       `json:"remediation"`
}

// encode is the body's canonical JSON, which shapes, values and digests
// are of.
func (b body) encode() ([]byte, error) {
	return appendBody(make([]byte, 0, bodySize(b)), b), nil
}

// shapeJSON is a shape as a plan file keeps it: the body whole, and the
// SHA-256 of its canonical JSON, by which devices name it.
type shapeJSON struct {
	SHA256      string             `json:"sha256"`
	Changes     []renderers.Change `json:"changes"`
	Remediation *Remediation       `json:"remediation"`
}

// stateShapeJSON is a desired state's shape as a plan file keeps it: the
// elements whole, and the SHA-256 of their canonical JSON
// (appendElements), by which devices name it.
type stateShapeJSON struct {
	SHA256   string              `json:"sha256"`
	Elements []renderers.Element `json:"elements"`
}

// bodyRef is a device's body (or desired state) in a plan file: the shape
// it is made from,
// the tokens where it differs ("index:token", the index counted from 0 in
// the shape's tokens), and the SHA-256 of the body they make.
type bodyRef struct {
	Shape  string   `json:"shape"`
	Values []string `json:"values,omitempty"`
	SHA256 string   `json:"sha256"`
}

// shape is one shared body, or one shared desired state, and its
// tokens.
type shape struct {
	id  string
	raw []byte
	// state tells a desired state's shape from a body's: a device names
	// each of its own kind only.
	state bool
	// at are the offsets where its tokens start, and len(raw) last.
	at []int32
}

func (s *shape) tokens() int { return len(s.at) - 1 }

func (s *shape) token(i int) []byte { return s.raw[s.at[i]:s.at[i+1]] }

// tokenize returns the offsets where b's tokens start, then len(b): a
// token is a run of letters and digits, or a run of anything else, so
// that a name, a number or a digest is one token and the JSON around it
// another.
func tokenize(b []byte) []int32 {
	at := make([]int32, 0, len(b)/4+2)
	prev := false
	for i, c := range b {
		if w := wordByte[c]; i == 0 || w != prev {
			at = append(at, int32(i))
			prev = w
		}
	}
	return append(at, int32(len(b)))
}

// wordByte tells the letters and digits, which tokenize runs over a
// hyperscale plan's gigabytes of text.
var wordByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return t
}()

func digestOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Shapes keeps the changes and remediations of a plan's devices once per
// shape, as the plan file does, so that a plan of a whole fabric holds
// each device's own values rather than its text: plan shares each device
// as soon as it is planned (Share), and apply reads a plan file into
// shared devices (ReadSharedPlan). A device's body is rebuilt when it is
// used (DevicePlan.Body), one device at a time. Safe for concurrent use.
type Shapes struct {
	mu     sync.Mutex
	shapes []*shape
	byID   map[string]*shape
	// byKind is the shape a device of a platform, role and token count
	// is first compared with.
	byKind map[string]*shape
}

// NewShapes returns an empty set of shapes.
func NewShapes() *Shapes {
	return &Shapes{byID: map[string]*shape{}, byKind: map[string]*shape{}}
}

// Shared is a device's changes and remediation, or its desired state,
// kept in a set of shapes.
type Shared struct {
	shapes *Shapes
	ref    bodyRef
	// outline, when set, is the body's outline, taken from it when it
	// was shared: a view of the plan reads it without rebuilding the body.
	outline *Outline
}

// Share returns dp with its changes and remediation kept in k (Shared
// set, Changes and Remediation nil), and its desired state (SharedDesired
// set, Desired nil); what a device does not have stays as it is.
func (k *Shapes) Share(dp DevicePlan) (DevicePlan, error) {
	if dp.Desired != nil {
		ref, err := k.pack(dp, encodeElements(dp.Desired), "", -1, true)
		if err != nil {
			return dp, err
		}
		dp.Desired, dp.SharedDesired = nil, &Shared{shapes: k, ref: *ref}
	}
	if dp.Changes == nil && dp.Remediation == nil {
		return dp, nil
	}
	raw, err := body{Changes: dp.Changes, Remediation: dp.Remediation}.encode()
	if err != nil {
		return dp, fmt.Errorf("device %s: %w", dp.Device, err)
	}
	ref, err := k.pack(dp, raw, "", -1, false)
	if err != nil {
		return dp, err
	}
	o, err := outlineOf(dp.Device, raw)
	if err != nil {
		return dp, err
	}
	dp.Changes, dp.Remediation, dp.Shared = nil, nil, &Shared{shapes: k, ref: *ref, outline: &o}
	return dp, nil
}

// maxLen bounds a body the token offsets can address.
const maxLen = 1<<31 - 1

// pack returns the body raw of device dp (its desired state's JSON when
// state is set) as a reference to a shape, adding the shape when raw is
// like none before it. id is raw's digest when the caller has just
// checked it, "" to compute it; tokens is how many tokens raw has when
// the caller knows (a body rebuilt from a shape has the shape's), -1 to
// count them.
func (k *Shapes) pack(dp DevicePlan, raw []byte, id string, tokens int, state bool) (*bodyRef, error) {
	if len(raw) > maxLen {
		return nil, fmt.Errorf("device %s: its %s takes %d bytes, more than a plan file holds for one device (%d)", dp.Device, shapeWhat(state), len(raw), maxLen)
	}
	if id == "" {
		id = digestOf(raw)
	}
	k.mu.Lock()
	known := k.byID[id] != nil
	k.mu.Unlock()
	if known {
		return &bodyRef{Shape: id, SHA256: id}, nil
	}
	if tokens < 0 {
		tokens = countTokens(raw)
	}
	kind := fmt.Sprintf("%t\x00%s\x00%s\x00%d", state, dp.Platform, dp.Role, tokens)
	k.mu.Lock()
	s := k.byKind[kind]
	k.mu.Unlock()
	if s != nil {
		// A shape is never changed once made: compared without the lock.
		if values := s.values(raw); values != nil {
			return &bodyRef{Shape: s.id, Values: values, SHA256: id}, nil
		}
	}
	at := tokenize(raw)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.byID[id] == nil {
		s = &shape{id: id, raw: raw, at: at, state: state}
		k.shapes = append(k.shapes, s)
		k.byID[id] = s
	}
	if k.byKind[kind] == nil {
		k.byKind[kind] = k.byID[id]
	}
	return &bodyRef{Shape: id, SHA256: id}, nil
}

// values returns the tokens where raw (which has as many tokens as s)
// differs from s, as "index:token"; nil when raw is mostly unlike s, and
// so a shape of its own.
//
// It walks the two side by side rather than token by token: a stretch
// the two share is skipped at the speed of a memory compare, and its
// tokens counted by the shape's offsets; only where they differ is raw
// read a byte at a time. Most of a device's body is its shape's.
func (s *shape) values(raw []byte) []string {
	var values []string
	size := 0
	n := s.tokens()
	for i, p := 0, 0; i < n; {
		q := int(s.at[i])
		end := q + commonPrefix(raw[p:], s.raw[q:])
		// The shape's tokens i..k-1 end inside the stretch the two share,
		// and so are raw's, but for one that ends where they part while
		// raw's runs on.
		k := i + sort.Search(n+1-i, func(j int) bool { return int(s.at[i+j]) > end }) - 1
		if k > i && int(s.at[k]) == end {
			if r := p + end - q; r < len(raw) && wordByte[raw[r]] == wordByte[raw[r-1]] {
				k--
			}
		}
		p += int(s.at[k]) - q
		if i = k; i == n {
			if p != len(raw) {
				return nil
			}
			break
		}
		if p >= len(raw) {
			return nil
		}
		e := p + 1
		for w := wordByte[raw[p]]; e < len(raw) && wordByte[raw[e]] == w; e++ {
		}
		if t := raw[p:e]; string(t) != string(s.token(i)) {
			v := strconv.Itoa(i) + ":" + string(t)
			values = append(values, v)
			if size += len(v) + 8; size > len(raw)/4 {
				return nil
			}
		}
		p, i = e, i+1
	}
	if values == nil {
		values = []string{}
	}
	return values
}

// commonPrefix is the length of the bytes a and b start with alike.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && bytes.Equal(a[i:i+64], b[i:i+64]) {
		i += 64
	}
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// countTokens is how many tokens tokenize finds in b, without an offset
// list.
func countTokens(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n, prev := 1, wordClass[b[0]]
	for _, c := range b[1:] {
		w := wordClass[c]
		n += int(w ^ prev)
		prev = w
	}
	return n
}

// wordClass is wordByte as 0 and 1, for counting without a branch.
var wordClass = func() (t [256]uint8) {
	for c, w := range wordByte {
		if w {
			t[c] = 1
		}
	}
	return t
}()

// shapeWhat names what a shape holds, for errors.
func shapeWhat(state bool) string {
	if state {
		return "desired state"
	}
	return "changes and remediation"
}

// raw rebuilds the body (the desired state when state is set) the
// reference makes, checked against its digest.
func (k *Shapes) raw(device string, r *bodyRef, state bool) ([]byte, error) {
	raw, _, err := k.rawTokens(device, r, state)
	return raw, err
}

// rawTokens is raw, and how many tokens the body has: its shape's, as
// each value values makes stands for one token of the shape. (Values
// edited into a file may not; the count only picks the shape a body is
// compared with when it is shared again, and values either rebuilds the
// body exactly or shares nothing.)
func (k *Shapes) rawTokens(device string, r *bodyRef, state bool) ([]byte, int, error) {
	k.mu.Lock()
	s := k.byID[r.Shape]
	if s != nil && s.state != state {
		s = nil
	}
	if s != nil && s.at == nil {
		s.at = tokenize(s.raw)
	}
	k.mu.Unlock()
	if s == nil {
		return nil, 0, fmt.Errorf("device %s: %s shape %q: the plan has no such shape", device, shapeWhat(state), r.Shape)
	}
	raw := s.raw
	if len(r.Values) > 0 {
		var b bytes.Buffer
		b.Grow(len(s.raw))
		next := 0
		for _, v := range r.Values {
			is, tok, ok := strings.Cut(v, ":")
			i, err := strconv.Atoi(is)
			if !ok || err != nil || i < next || i >= s.tokens() {
				return nil, 0, fmt.Errorf("device %s: value %q: an index:token whose index is above the one before and below %d, the shape's tokens, is needed", device, v, s.tokens())
			}
			b.Write(s.raw[s.at[next]:s.at[i]])
			b.WriteString(tok)
			next = i + 1
		}
		b.Write(s.raw[s.at[next]:])
		raw = b.Bytes()
	}
	if got := digestOf(raw); got != r.SHA256 {
		return nil, 0, fmt.Errorf("device %s: its shape and values give a %s of SHA-256 %s, and the plan binds it to %s (the file was edited)", device, shapeWhat(state), got, r.SHA256)
	}
	return raw, s.tokens(), nil
}

// unpack rebuilds a device's body from its reference.
func (k *Shapes) unpack(device string, r *bodyRef) (body, error) {
	raw, err := k.raw(device, r, false)
	if err != nil {
		return body{}, err
	}
	out, ok := decodeBody(raw)
	if !ok {
		if err := json.Unmarshal(raw, &out); err != nil {
			return body{}, fmt.Errorf("device %s: its changes and remediation: %w", device, err)
		}
	}
	if out.Changes == nil && out.Remediation == nil {
		return body{}, errors.New("device " + device + ": its body has neither changes nor a remediation")
	}
	return out, nil
}

// addShapes checks each shape of a plan file against its digest and
// keeps it.
func (k *Shapes) addShapes(shapes []shapeJSON) error {
	for i, sj := range shapes {
		raw, err := body{Changes: sj.Changes, Remediation: sj.Remediation}.encode()
		if err != nil {
			return fmt.Errorf("shape %d: %w", i+1, err)
		}
		if err := k.add(fmt.Sprintf("shape %d", i+1), sj.SHA256, raw, false); err != nil {
			return err
		}
	}
	return nil
}

// addStates checks each desired state's shape of a plan file against its
// digest and keeps it.
func (k *Shapes) addStates(shapes []stateShapeJSON) error {
	for i, sj := range shapes {
		if err := k.add(fmt.Sprintf("desired shape %d", i+1), sj.SHA256, encodeElements(sj.Elements), true); err != nil {
			return err
		}
	}
	return nil
}

// add keeps a shape read from a plan file, named what in errors, once it
// has checked it has the digest id.
func (k *Shapes) add(what, id string, raw []byte, state bool) error {
	if got := digestOf(raw); got != id {
		return fmt.Errorf("%s: its sha256 is %q, its %s give %s (the file was edited)", what, id, shapeWhat(state), got)
	}
	if k.byID[id] != nil {
		return fmt.Errorf("%s: shape %s appears twice", what, id)
	}
	if len(raw) > maxLen {
		return fmt.Errorf("%s: %d bytes, more than a plan file holds for one device (%d)", what, len(raw), maxLen)
	}
	s := &shape{id: id, raw: raw, state: state}
	k.shapes = append(k.shapes, s)
	k.byID[id] = s
	return nil
}

// Body returns the device's changes and remediation: its own, or those
// rebuilt from its shape when the plan shares them (checked against the
// digest that binds them).
func (d *DevicePlan) Body() ([]renderers.Change, *Remediation, error) {
	if d.Shared == nil {
		return d.Changes, d.Remediation, nil
	}
	b, err := d.Shared.shapes.unpack(d.Device, &d.Shared.ref)
	if err != nil {
		return nil, nil, err
	}
	return b.Changes, b.Remediation, nil
}

// DesiredState returns the device's recorded desired state: its own, or
// the one rebuilt from its shape when the plan shares it (checked against
// the digest that binds it); nil when the plan records none.
func (d *DevicePlan) DesiredState() ([]renderers.Element, error) {
	if d.SharedDesired == nil {
		return d.Desired, nil
	}
	raw, err := d.SharedDesired.shapes.raw(d.Device, &d.SharedDesired.ref, true)
	if err != nil {
		return nil, err
	}
	es, ok := decodeElements(raw)
	if !ok {
		if err := json.Unmarshal(raw, &es); err != nil {
			return nil, fmt.Errorf("device %s: its desired state: %w", d.Device, err)
		}
	}
	if es == nil {
		return nil, fmt.Errorf("device %s: its desired state is null, not a list of elements", d.Device)
	}
	return es, nil
}

// HasDesired reports whether the plan records the device's desired
// state, its own or shared.
func (d *DevicePlan) HasDesired() bool {
	return d.Desired != nil || d.SharedDesired != nil
}

// HasBody reports whether the device has changes or a remediation, its
// own or shared.
func (d *DevicePlan) HasBody() bool {
	return d.Shared != nil || d.Changes != nil || d.Remediation != nil
}

// Outline is what a view of a plan needs of a device's changes and
// remediation without rebuilding them: how many changes, how many lines
// the remediation has, and a digest that is the same for two devices
// exactly when their changes are.
type Outline struct {
	Changes          int
	RemediationLines int
	ChangesDigest    [sha256.Size]byte
}

// rawBody is the JSON of the device's changes and remediation: read from
// the shape it shares, or encoded from its own.
func (d *DevicePlan) rawBody() ([]byte, error) {
	if d.Shared != nil {
		return d.Shared.shapes.raw(d.Device, &d.Shared.ref, false)
	}
	return body{Changes: d.Changes, Remediation: d.Remediation}.encode()
}

// Outline returns the device's outline; for a device that shares its
// body it is read from the body's JSON, not decoded from it.
func (d *DevicePlan) Outline() (Outline, error) {
	if d.Shared != nil && d.Shared.outline != nil {
		return *d.Shared.outline, nil
	}
	raw, err := d.rawBody()
	if err != nil {
		return Outline{}, err
	}
	return outlineOf(d.Device, raw)
}

// outlineOf is the outline of device's body raw.
func outlineOf(device string, raw []byte) (Outline, error) {
	// The body's JSON is {"changes":[...],"remediation":...}: no string
	// in it holds an unescaped quote, so the first `,"remediation":` is
	// the body's own, and each change starts with `{"path":`.
	cut := bytes.Index(raw, []byte(`,"remediation":`))
	if cut < 0 {
		return Outline{}, fmt.Errorf("device %s: its body has no remediation field", device)
	}
	o := Outline{
		Changes:       bytes.Count(raw[:cut], []byte(`{"path":`)),
		ChangesDigest: sha256.Sum256(raw[:cut]),
	}
	rem := raw[cut+len(`,"remediation":`) : len(raw)-1]
	if string(rem) == "null" {
		return o, nil
	}
	o.RemediationLines = 1
	if i := bytes.Index(rem, []byte(`"text":"`)); i >= 0 {
		// Newlines in the text, as JSON escapes them (`\n`; a
		// backslash is `\\`).
		for t := rem[i+len(`"text":"`):]; len(t) > 1; {
			j := bytes.IndexByte(t, '\\')
			if j < 0 || j+1 >= len(t) {
				break
			}
			if t[j+1] == 'n' {
				o.RemediationLines++
			}
			t = t[j+2:]
		}
		return o, nil
	}
	var r Remediation
	if err := json.Unmarshal(rem, &r); err != nil {
		return Outline{}, fmt.Errorf("device %s: its remediation: %w", device, err)
	}
	o.RemediationLines += bytes.Count(r.Content, []byte("\n"))
	return o, nil
}
