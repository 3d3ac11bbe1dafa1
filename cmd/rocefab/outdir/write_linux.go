package outdir

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// stageDir is the open staging directory. Files are created relative to it
// (openat, mkdirat) with plain system calls: os.OpenFile spends five more
// calls per file (fcntl, epoll registration of a regular file) and
// os.MkdirAll two stats per directory, which on a build of thousands of
// small files cost more than writing their bytes.
type stageDir struct {
	path string
	fd   int // -1 until opened
}

func openStageDir(p string) (*stageDir, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return &stageDir{path: p, fd: fd}, nil
}

func (d *stageDir) close() {
	if d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// mkdir creates the directory rel (slash-separated, clean, local) and its
// missing parents.
func (d *stageDir) mkdir(rel string) error {
	err := ignoringEINTR(func() error { return unix.Mkdirat(d.fd, rel, 0o755) })
	if errors.Is(err, unix.ENOENT) {
		if parent := path.Dir(rel); parent != "." {
			if err := d.mkdir(parent); err != nil {
				return err
			}
		}
		err = ignoringEINTR(func() error { return unix.Mkdirat(d.fd, rel, 0o755) })
	}
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return &fs.PathError{Op: "mkdir", Path: filepath.Join(d.path, filepath.FromSlash(rel)), Err: err}
	}
	return nil
}

// create writes a new file rel with content; it fails with an error that
// matches fs.ErrExist when rel exists.
func (d *stageDir) create(rel string, content []byte, mode fs.FileMode) error {
	full := func() string { return filepath.Join(d.path, filepath.FromSlash(rel)) }
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat(d.fd, rel, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, uint32(mode.Perm()))
		return err
	})
	if err != nil {
		return &fs.PathError{Op: "open", Path: full(), Err: err}
	}
	for len(content) > 0 {
		n, werr := unix.Write(fd, content)
		if werr == unix.EINTR {
			continue
		}
		if werr != nil {
			err = werr
			break
		}
		if n == 0 {
			err = unix.EIO
			break
		}
		content = content[n:]
	}
	if cerr := unix.Close(fd); err == nil && cerr != nil && cerr != unix.EINTR {
		err = cerr
	}
	if err != nil {
		return &fs.PathError{Op: "write", Path: full(), Err: err}
	}
	return nil
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}
