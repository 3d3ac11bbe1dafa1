package diag

import (
	"bytes"
	"cmp"
	"net/url"
	"slices"
	"strings"
)

// SARIF constants. The schema URL is the one GitHub code scanning and most
// viewers recognise; the base ID lets consumers resolve relative URIs
// against their own checkout.
const (
	sarifSchema    = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion   = "2.1.0"
	sarifToolName  = "rocefab"
	sarifToolURI   = "https://github.com/rocefab/rocefab"
	sarifSrcRootID = "%SRCROOT%"
)

// The sarif* types are the subset of the SARIF 2.1.0 object model that
// rocefab fills in. Struct fields fix the key order, so output is byte for
// byte the same for the same input.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

// sarifInvocation says whether the run did its job (SARIF 2.1.0 §3.20:
// executionSuccessful is required; toolExecutionNotifications carries what
// stopped it). Appendix I of the specification has consumers treat a run
// with executionSuccessful false, or an error notification, as incomplete,
// which is what a run that could not read its input is.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     *sarifText     `json:"shortDescription,omitempty"`
	FullDescription      *sarifText     `json:"fullDescription,omitempty"`
	Help                 *sarifText     `json:"help,omitempty"`
	DefaultConfiguration *sarifRuleConf `json:"defaultConfiguration,omitempty"`
	HelpURI              string         `json:"helpUri,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID     string            `json:"ruleId,omitempty"`
	RuleIndex  *int              `json:"ruleIndex,omitempty"` // pointer: 0 is a valid index
	Level      string            `json:"level"`
	Message    sarifText         `json:"message"`
	Locations  []sarifLocation   `json:"locations,omitempty"`
	Properties map[string]string `json:"properties,omitempty"` // map keys are sorted by encoding/json
}

type sarifLocation struct {
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifLevel maps a severity to a SARIF level; SARIF has no "info" and
// calls it "note".
func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// optText returns nil for an empty string so that empty descriptions are
// left out rather than printed as {"text": ""}.
func optText(s string) *sarifText {
	if s == "" {
		return nil
	}
	return &sarifText{Text: s}
}

// printSARIF writes a SARIF 2.1.0 log with one run. There are no
// timestamps or absolute base URIs in it, so that the same findings always
// give the same file and uploads can be compared.
func printSARIF(buf *bytes.Buffer, l List, c Config) error {
	rules := sarifRules(l, c.Rules)
	index := make(map[string]int, len(rules))
	for i, r := range rules {
		index[r.ID] = i
	}
	results := make([]sarifResult, 0, len(l))
	for _, d := range l {
		res := sarifResult{
			RuleID:  d.Rule,
			Level:   sarifLevel(d.Severity),
			Message: sarifText{Text: d.fullMessage()},
		}
		if i, ok := index[d.Rule]; ok && d.Rule != "" {
			res.RuleIndex = &i
		}
		if d.Pos.File != "" {
			res.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical(c.Cwd, d.Pos)}}
		}
		props := map[string]string{}
		if d.Device != "" {
			props["device"] = d.Device
		}
		if d.Port != "" {
			props["port"] = d.Port
		}
		if d.Pos.Pointer != "" {
			props["pointer"] = d.Pos.Pointer
		}
		if len(props) > 0 {
			res.Properties = props
		}
		results = append(results, res)
	}
	inv := sarifInvocation{ExecutionSuccessful: c.ToolError == ""}
	if c.ToolError != "" {
		inv.ToolExecutionNotifications = []sarifNotification{{Level: "error", Message: sarifText{Text: c.ToolError}}}
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{
				Name:           sarifToolName,
				Version:        c.ToolVersion,
				InformationURI: sarifToolURI,
				Rules:          rules,
			}},
			Invocations: []sarifInvocation{inv},
			Results:     results,
		}},
	}
	return encodeJSON(buf, log)
}

// sarifRules returns the rule table: every rule in infos (the first entry
// wins for a duplicated ID), plus a minimal entry for each rule used in l
// but not described, sorted by ID so the table and the result indexes into
// it do not depend on registration order.
func sarifRules(l List, infos []RuleInfo) []sarifRule {
	rules := make([]sarifRule, 0, len(infos))
	seen := map[string]bool{}
	for _, ri := range infos {
		if ri.ID == "" || seen[ri.ID] {
			continue
		}
		seen[ri.ID] = true
		help := ri.Doc
		if help == "" {
			help = ri.Title
		}
		rules = append(rules, sarifRule{
			ID:                   ri.ID,
			Name:                 ri.Name,
			ShortDescription:     optText(ri.Title),
			FullDescription:      optText(ri.Doc),
			Help:                 optText(help),
			DefaultConfiguration: &sarifRuleConf{Level: sarifLevel(ri.Severity)},
			HelpURI:              ri.HelpURI,
		})
	}
	for _, d := range l {
		if d.Rule == "" || seen[d.Rule] {
			continue
		}
		seen[d.Rule] = true
		// The default level of an undescribed rule is unknown, so it is
		// left out; each result carries its own level anyway.
		rules = append(rules, sarifRule{ID: d.Rule, Name: d.Name})
	}
	slices.SortStableFunc(rules, func(a, b sarifRule) int { return cmp.Compare(a.ID, b.ID) })
	return rules
}

// sarifPhysical locates p for SARIF. Files under cwd (or given relative)
// become URIs relative to %SRCROOT%; files elsewhere become absolute file
// URIs, since a relative reference climbing out of the source root would
// not resolve for a consumer.
func sarifPhysical(cwd string, p Pos) sarifPhysicalLocation {
	var loc sarifPhysicalLocation
	file := relPath(cwd, p.File)
	if isAbsSlash(file) {
		if !strings.HasPrefix(file, "/") {
			file = "/" + file // a Windows drive path, C:/x
		}
		loc.ArtifactLocation.URI = (&url.URL{Scheme: "file", Path: file}).String()
	} else {
		loc.ArtifactLocation.URI = (&url.URL{Path: file}).String()
		loc.ArtifactLocation.URIBaseID = sarifSrcRootID
	}
	if p.Line > 0 {
		loc.Region = &sarifRegion{StartLine: p.Line, StartColumn: p.Column}
	}
	return loc
}

// isAbsSlash reports whether a forward-slash path is absolute, either
// rooted or with a Windows drive letter, independent of the host OS.
func isAbsSlash(p string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' &&
		('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}
