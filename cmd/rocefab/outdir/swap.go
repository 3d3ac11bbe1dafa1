package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// swap puts the directory tmp at dir. When dir exists the two are
// exchanged in one step where the platform can (exchange), or else by
// two renames; old is then where the replaced build lies, for the caller
// to clear.
func swap(tmp, dir string) (old string, err error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", os.Rename(tmp, dir)
	}
	switch done, err := exchange(tmp, dir); {
	case err != nil:
		return "", err
	case done:
		return tmp, nil
	}
	return swapByRenames(tmp, dir)
}

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
