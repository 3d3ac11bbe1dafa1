// Package oc holds the Go structs that ygot's generator makes from the
// OpenConfig YANG models rocefab renders: openconfig-interfaces,
// openconfig-if-ethernet and openconfig-qos, with the modules they import
// (openconfig-platform and openconfig-defined-sets among them, so that
// leafrefs into those trees validate).
//
// The code is in oc.go, generated and committed; do not edit it. The YANG
// comes from github.com/openconfig/public at the commit recorded in
// ../shared/yang/SOURCE.md (the shared/ directory sits beside the repository
// root), and the generator is the tool github.com/openconfig/ygot/generator
// pinned by go.mod. From the repository root,
//
//	go generate ./renderers/openconfig/oc
//
// runs gen.sh, which runs the generator with relative paths, formats the
// result with gofmt -s and rewrites the header so that it names the ygot
// version and the openconfig/public commit and holds no machine-specific
// path. It also makes the schema lazy: the generator's init would unzip it
// at every start of rocefab, so gen.sh turns the variable SchemaTree into
// the function [SchemaTree] (lazy.go), which unzips it on first use. The
// output is byte-identical from run to run; a test fails when oc.go is
// stale.
//
// The root is [Device] (paths compressed, fake root "device"): its Interface
// map holds /interfaces and its Qos field /qos. ygot's generated names depend
// on the module set (for example [E_Qos_Classifier_Type] for a classifier's
// type and [E_Input_Classifier_Type] for the key of an interface's classifier
// binding), so keep their use behind the renderer and regenerate on purpose.
//
// Validate a tree with ygot.ValidateGoStruct and emit it with ygot.EmitJSON
// (RFC 7951, module names appended); [Unmarshal] reads such JSON back.
package oc

//go:generate sh gen.sh
