//go:build !linux

package outdir

// exchange reports false: only Linux has an atomic exchange of two
// directories (renameat2), elsewhere dir is replaced by two renames.
func exchange(tmp, dir string) (bool, error) {
	return false, nil
}
