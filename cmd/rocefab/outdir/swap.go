package outdir

import (
	"fmt"
	"os"
	"path/filepath"
)

// swapByRenames replaces dir with tmp in two renames, for file systems
// without an atomic exchange. Between them dir is briefly missing, never
// half-written; a failure of the second rename puts the old build back.
func swapByRenames(tmp, dir string) (old string, err error) {
	old, err = os.MkdirTemp(filepath.Dir(dir), stagingPrefix(filepath.Base(dir))+"old-")
	if err != nil {
		return "", err
	}
	if err := os.Remove(old); err != nil {
		return "", err
	}
	if err := os.Rename(dir, old); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return "", fmt.Errorf("%w (and the earlier build stays at %s: %v)", err, old, rerr)
		}
		return "", err
	}
	return old, nil
}
