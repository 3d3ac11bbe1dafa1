package platforms

import (
	"github.com/rocefab/rocefab/renderers/rendertest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestStatementsValid(t *testing.T) {
	if err := ValidateStatements(); err != nil {
		t.Fatal(err)
	}
	rows := Statements()
	if len(rows) == 0 {
		t.Fatal("no statement rows")
	}
	for _, r := range rows {
		got, ok := LookupStatement(r.Platform, r.Form)
		if !ok || got.Status != r.Status || IsVerify(r.Platform, r.Form) != (r.Status == Verify) {
			t.Errorf("%s `%s`: lookup gives %+v %v", r.Platform, r.Form, got, ok)
		}
	}
	if IsVerify("eos", "no such form") {
		t.Error("an unknown form reads as verify")
	}
}

// The decoder refuses rows a reader could not trust: a verify form with no
// condition, an unknown condition, a status other than the two, a row
// listed twice.
func TestStatementsRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"verify without when": `[{"platform":"eos","form":"x","status":"verify","source":"s"}]`,
		"unknown condition":   `[{"platform":"eos","form":"x","status":"verify","when":["sunny"],"source":"s"}]`,
		"unknown alternative": `[{"platform":"eos","form":"x","status":"verify","when":["lb:ecmp|random"],"source":"s"}]`,
		"bad status":          `[{"platform":"eos","form":"x","status":"maybe","source":"s"}]`,
		"no source":           `[{"platform":"eos","form":"x","status":"sourced","source":""}]`,
		"unknown platform":    `[{"platform":"junos","form":"x","status":"sourced","source":"s"}]`,
		"twice":               `[{"platform":"eos","form":"x","status":"sourced","source":"s"},{"platform":"eos","form":"x","status":"sourced","source":"t"}]`,
		"unknown field":       `[{"platform":"eos","form":"x","status":"sourced","source":"s","note":"n"}]`,
	} {
		if _, err := decodeStatements([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := decodeStatements([]byte(`[{"platform":"eos","form":"x","status":"verify","when":["!mmu:dnx","lb:adaptive|spray"],"source":"s"}]`)); err != nil {
		t.Errorf("valid conditions refused: %v", err)
	}
}

func TestParseCondition(t *testing.T) {
	neg, conds := ParseCondition("!lb:adaptive|spray")
	if !neg || !slices.Equal(conds, []string{"lb:adaptive", "lb:spray"}) {
		t.Errorf("got %v %v", neg, conds)
	}
	neg, conds = ParseCondition("lossless")
	if neg || !slices.Equal(conds, []string{"lossless"}) {
		t.Errorf("got %v %v", neg, conds)
	}
}

// docs/statements.md is the table rendered; ROCEFAB_UPDATE=1 rewrites it.
func TestStatementsDoc(t *testing.T) {
	want, err := StatementsMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	rendertest.Golden(t, filepath.Join("..", "..", "docs", "statements.md"), want)
	for _, r := range Statements() {
		if !strings.Contains(string(want), "| `"+r.Form+"` |") {
			t.Errorf("%s `%s` missing from the document", r.Platform, r.Form)
		}
	}
}
