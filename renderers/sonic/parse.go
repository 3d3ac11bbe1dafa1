package sonic

import (
	"slices"
	"strings"
)

// members reads the object at s.pos (after white space) in one pass,
// calling fn for each member with s.pos at its value (after white
// space). fn reads the value itself and returns true, or returns false
// to have it skipped.
func (s *scanner) members(depth int, fn func(m jmember) (bool, error)) error {
	if empty, err := s.open(depth, '{', '}', "an object"); empty || err != nil {
		return err
	}
	for {
		m, err := s.member(true)
		if err != nil {
			return err
		}
		read, err := fn(m)
		if err != nil {
			return err
		}
		if !read {
			s.pos = m.valueStart
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
		if done, err := s.next('}', "object"); done || err != nil {
			return err
		}
	}
}

// parse reads a config_db.json within sc in one pass over the text: a
// table rocefab does not own is read over, and an owned field's value
// is read where it stands. The text is copied to a string once, and every
// name and value without escapes is a slice of that copy.
func parse(src []byte, sc *scope) (*State, error) {
	p := &scanner{src: src, text: string(src)}
	s := &State{parsed: true, tables: map[string]bool{}, tableRows: map[string]int{}, rowsOf: map[string][]rowInfo{}}
	s.es = make([]entry, 0, sc.fields)
	var fields []string // names of the row being read
	var table string
	// The rows of all owned tables share one list, each table a part of
	// it; a rendered port has about fourteen rows.
	all := make([]rowInfo, 0, 16*len(sc.ports)+64)
	var rows []rowInfo
	var row rowInfo
	field := func(f jmember) (bool, error) {
		for _, g := range fields {
			if g == f.name {
				return false, p.errorf(f.nameStart, "%s|%s field %s is given twice", table, row.key, f.name)
			}
		}
		fields = append(fields, f.name)
		if !sc.owns(table, row.key, f.name) {
			row.foreign = true
			return false, nil
		}
		if f.valueKind != '"' {
			return false, p.errorf(f.valueStart, "%s|%s field %s is not a string, as CONFIG_DB holds every value", table, row.key, f.name)
		}
		v, err := p.str()
		if err != nil {
			return false, err
		}
		s.es = append(s.es, entry{table, row.key, f.name, v})
		return true, nil
	}
	readRow := func(r jmember) (bool, error) {
		if r.valueKind != '{' {
			return false, p.errorf(r.valueStart, "%s|%s is not an object", table, r.name)
		}
		row, fields = rowInfo{key: r.name, at: r.nameStart}, fields[:0]
		if err := p.members(2, field); err != nil {
			return false, err
		}
		if len(fields) == 0 {
			row.foreign = true
		}
		all = append(all, row)
		return true, nil
	}
	readTable := func(t jmember) (bool, error) {
		if s.tables[t.name] {
			return false, p.errorf(t.nameStart, "table %s is given twice", t.name)
		}
		s.tables[t.name] = true
		if !ownedTables[t.name] {
			return false, nil
		}
		if t.valueKind != '{' {
			return false, p.errorf(t.valueStart, "table %s is not an object", t.name)
		}
		table = t.name
		from := len(all)
		if err := p.members(1, readRow); err != nil {
			return false, err
		}
		rows = all[from:len(all):len(all)]
		// `config save` writes keys sorted; a stable sort otherwise keeps
		// a repeated row's second place for the error.
		byKey := func(a, b rowInfo) int { return strings.Compare(a.key, b.key) }
		if !slices.IsSortedFunc(rows, byKey) {
			slices.SortStableFunc(rows, byKey)
		}
		for i := 1; i < len(rows); i++ {
			if rows[i].key == rows[i-1].key {
				return false, p.errorf(rows[i].at, "%s|%s is given twice", t.name, rows[i].key)
			}
		}
		if len(rows) > 0 {
			s.rowsOf[t.name], s.tableRows[t.name] = rows, len(rows)
		}
		return true, nil
	}
	if err := p.members(0, readTable); err != nil {
		return nil, err
	}
	p.ws()
	if p.pos != len(src) {
		return nil, p.errorf(p.pos, "data after the top-level object")
	}
	if !slices.IsSortedFunc(s.es, compareEntry) {
		slices.SortFunc(s.es, compareEntry)
	}
	return s, nil
}
