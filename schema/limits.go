package schema

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/rocefab/rocefab/compiler/diag"
)

// The input limits. CUE evaluation of an intent grows faster than its size
// (8,000 tenants declared one per line take 2 s, 20,000 take 13 s, 80,000 a
// gigabyte and half a minute), so the loader counts what the intent declares
// in its syntax tree before it evaluates anything, and answers an intent
// above a limit with an RF001 finding at the field that passes it. The
// limits sit far above what a fabric needs: an intent is parameters, and a
// large fabric given device by device is a JSON device list, read without
// CUE. README.md ("Limits") lists them for users.
const (
	// MaxIntentBytes bounds the intent's files together: parsing them is
	// the one cost paid before counting, about half a second per MiB.
	MaxIntentBytes = 2 << 20
	// MaxDeclarations bounds the field declarations of an intent, counted
	// as written (a: b: 1 is two).
	MaxDeclarations = 20_000
	// MaxTenants bounds the tenants.
	MaxTenants = 4096
	// MaxClasses bounds the traffic classes; eight priorities hold at most
	// eight classes that lint accepts.
	MaxClasses = 64
	// MaxFields bounds the fields of any other struct (NCCL environments,
	// shaping, reserves).
	MaxFields = 1024
	// MaxListElements bounds every list (DSCP values, NIC ports, a tenant's
	// server ranges).
	MaxListElements = 1024

	// MaxListedDevices and MaxListedLinks bound an explicit device list:
	// ten times the 100,000-GPU design point, and the links the topology
	// expansion accepts (topology.MaxLinks; a test keeps them equal).
	MaxListedDevices = 300_000
	MaxListedLinks   = 3_000_000
	// MaxDeviceListBytes bounds a device list file: 3,000,000 links of
	// about 90 bytes, and their devices.
	MaxDeviceListBytes = 512 << 20
)

// limitOf returns the field limit of the struct at path (labels joined by
// pathSep) and what its fields are called.
func limitOf(path string) (int, string) {
	switch path {
	case "tenants":
		return MaxTenants, "tenants"
	case "classes":
		return MaxClasses, "classes"
	}
	return MaxFields, "fields"
}

const pathSep = "\x00" // labels may hold dots ("roce.v2")

// checkLimits parses the intent's files and counts, before any evaluation,
// the field declarations, the distinct fields of each struct (across all
// files: CUE merges them) and the elements of each list. A file that does
// not parse is left to cue/load, which reports the syntax error.
func checkLimits(files []source) diag.List {
	c := &limitCounter{fields: map[string]*fieldCount{}}
	for _, f := range files {
		af, err := parser.ParseFile(f.name, f.data)
		if err != nil {
			return nil
		}
		c.decls(nil, af.Decls)
		if c.stop {
			break
		}
	}
	return c.ds
}

type fieldCount struct {
	labels map[string]bool
	report bool
}

type limitCounter struct {
	fields map[string]*fieldCount
	n      int // declarations so far
	ds     diag.List
	stop   bool
}

func (c *limitCounter) report(pos token.Pos, format string, args ...any) {
	p := toPos(pos)
	if !p.IsValid() {
		p = diag.Pos{File: pos.Filename(), Line: 1, Column: 1}
	}
	c.ds = append(c.ds, schemaDiag(p, format, args...))
}

func (c *limitCounter) decls(path []string, decls []ast.Decl) {
	for _, d := range decls {
		if c.stop {
			return
		}
		switch d := d.(type) {
		case *ast.Field:
			c.n++
			if c.n > MaxDeclarations {
				c.report(d.Pos(), "the intent declares more than %s fields: an intent holds parameters; give a large fabric as a JSON device list (topology.style \"explicit\")",
					thousands(MaxDeclarations))
				c.stop = true
				return
			}
			label, ok := labelOf(d.Label)
			if !ok {
				// A pattern or computed label constrains fields; it adds
				// none.
				c.expr(child(path, "*"), d.Value)
				continue
			}
			key := strings.Join(path, pathSep)
			fc := c.fields[key]
			if fc == nil {
				fc = &fieldCount{labels: map[string]bool{}}
				c.fields[key] = fc
			}
			if !fc.labels[label] {
				fc.labels[label] = true
				if limit, what := limitOf(key); len(fc.labels) > limit && !fc.report {
					fc.report = true
					where := "the intent"
					if len(path) > 0 {
						where = fieldPath(path)
					}
					c.report(d.Pos(), "%s: more than the %s %s an intent may hold", where, thousands(limit), what)
				}
			}
			c.expr(child(path, label), d.Value)
		case *ast.EmbedDecl:
			c.expr(path, d.Expr)
		case *ast.Comprehension:
			c.comprehension(path, d)
		}
	}
}

// comprehension refuses `for` clauses: the fields they make cannot be
// counted without evaluating them, and nested ones multiply (three loops
// over 100 values make a million tenants). `if` guards make no more than
// they hold.
func (c *limitCounter) comprehension(path []string, d *ast.Comprehension) {
	for _, cl := range d.Clauses {
		if f, ok := cl.(*ast.ForClause); ok {
			c.report(f.Pos(), "%s: a for comprehension: rocefab bounds what an intent declares before evaluating it and cannot count what a loop makes; write the fields, or generate the intent as JSON",
				orIntent(path))
			return
		}
	}
	c.expr(path, d.Value)
}

func orIntent(path []string) string {
	if len(path) == 0 {
		return "the intent"
	}
	return fieldPath(path)
}

func (c *limitCounter) expr(path []string, e ast.Expr) {
	if c.stop {
		return
	}
	switch e := e.(type) {
	case *ast.StructLit:
		c.decls(path, e.Elts)
	case *ast.ListLit:
		if len(e.Elts) > MaxListElements {
			c.report(e.Pos(), "%s: a list of %s elements, more than the %s a list may hold", orIntent(path), thousands(len(e.Elts)), thousands(MaxListElements))
			return
		}
		for _, x := range e.Elts {
			if comp, ok := x.(*ast.Comprehension); ok {
				c.comprehension(child(path, "[]"), comp)
				continue
			}
			c.expr(child(path, "[]"), x)
		}
	case *ast.BinaryExpr:
		c.expr(path, e.X)
		c.expr(path, e.Y)
	case *ast.ParenExpr:
		c.expr(path, e.X)
	}
}

// child returns path with one more label, never sharing path's array.
func child(path []string, label string) []string {
	return append(path[:len(path):len(path)], label)
}

// labelOf returns a field's name when it is written literally: an
// identifier or a string.
func labelOf(l ast.Label) (string, bool) {
	name, _, err := ast.LabelName(l)
	if err != nil {
		return "", false
	}
	return name, true
}

// thousands writes n with comma separators, as the messages of lint do.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
