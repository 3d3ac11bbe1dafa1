package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers/rendertest"
)

func repoRoot(t *testing.T) string { return rendertest.RepoRoot(t) }

// goldenDevices are the devices of each example whose artifacts are kept
// as golden files: one per role and platform, and the first server.
var goldenDevices = map[string][]string{
	"pod-2048":        {"leaf-r0-00", "spine-00", "gpu-0000"},
	"multitenant":     {"leaf-r0-00", "spine-00", "gpu-0000"},
	"hyperscale-100k": {"leaf-r0-000", "spine-0000", "superspine-000", "gpu-00000"},
}

// TestExamplesGolden builds every example and compares SUMMARY.md, the
// tenants' environments, the Slurm topology files, the chosen devices'
// artifacts and (for the smaller examples) inventory.json with
// testdata/golden/<example>/.
// ROCEFAB_UPDATE=1 rewrites them.
func TestExamplesGolden(t *testing.T) {
	root := repoRoot(t)
	for example, devices := range goldenDevices {
		t.Run(example, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(root, "examples", example)
			for _, dev := range devices {
				out := filepath.Join(t.TempDir(), "out")
				var stdout, stderr bytes.Buffer
				if code := Run([]string{"build", src, "-o", out, "--only", dev, "-q"}, &stdout, &stderr); code != 0 {
					t.Fatalf("build %s --only %s: exit %d\n%s", example, dev, code, stderr.String())
				}
				keep := []string{dev}
				if dev == devices[0] {
					keep = append(keep, "SUMMARY.md", "slurm")
					if example != "hyperscale-100k" {
						keep = append(keep, "inventory.json")
					}
				}
				for _, k := range keep {
					compareTree(t, filepath.Join(out, k), filepath.Join(root, "testdata", "golden", example, k))
				}
			}
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			// A pattern that names no device is a mistake, not an empty build.
			if code := Run([]string{"build", src, "-o", out, "--only", "no-such-device", "-q"}, &stdout, &stderr); code != 2 ||
				!strings.Contains(stderr.String(), `--only "no-such-device" matches no device; closest: `) {
				t.Fatalf("build --only no-such-device: exit %d, want 2 naming the closest devices\n%s", code, stderr.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("build --only no-such-device wrote %s", out)
			}
		})
	}
}

// compareTree compares a file, or every file below a directory, with its
// golden copy.
func compareTree(t *testing.T, got, golden string) {
	t.Helper()
	err := filepath.WalkDir(got, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, got)
		rendertest.Golden(t, golden+rel, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A golden file the build no longer writes is stale too.
	_ = filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if _, err := os.Stat(got + strings.TrimPrefix(p, golden)); err != nil {
			if rendertest.Update() {
				return os.Remove(p)
			}
			t.Errorf("%s is not written any more: remove it (ROCEFAB_UPDATE=1 does)", p)
		}
		return nil
	})
}
