package lint_test

import (
	"testing"

	"github.com/rocefab/rocefab/compiler/lint"
)

// TestSchemaRule runs the RF001 cases: values the CUE types let through
// but that a renderer or the build refuses, names that could lead a path
// out of the build, and device lists that cannot be built. Each must be a
// finding at the intent's field, so that lint agrees with build.
func TestSchemaRule(t *testing.T) { runRule(t, lint.SchemaRule) }
