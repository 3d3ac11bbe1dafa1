package renderers

// Applier applies a remediation to a running configuration the way the
// device itself would: a platform implements it next to Platform so that a
// target that keeps running configurations as files (the directory target)
// can be pushed to without knowing any platform's syntax.
//
// Apply returns the running artifacts after rem: the artifacts it was given,
// under the same paths, with the owned scope changed as rem says and every
// byte outside the owned scope as it was (foreign sections, comments,
// ordering), plus any artifact the remediation creates. It never drops an
// artifact it was given and does not change running. Applying the
// remediation of Diff(Parse(running), desired) and parsing the result gives
// desired within the owned scope.
type Applier interface {
	Apply(running []Artifact, rem Remediation) ([]Artifact, error)
}
