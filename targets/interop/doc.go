// Package interop holds rocefab's interoperability tests: plan and apply
// against implementations of the protocols that this project did not
// write. It is a Go module of its own (rocefab's module is replaced by
// the directory above), since openconfig/lemming pins other versions of
// the libraries rocefab uses and must not enter rocefab's module graph.
//
// Run it with `(cd targets/interop && go test ./...)`.
package interop
